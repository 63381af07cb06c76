import { blockedCause, callbackDispatcher, outboundUrlProblem, type FetchGuard } from '../lib/outbound-guard.js';

export interface WebhookTarget {
  url: string;
  secret: string;
}

export interface WebhookLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

const attemptTimeoutMs = 10_000;
const retryDelaysMs = [1_000, 4_000, 15_000];

/** Only https webhooks: the secret travels in the Authorization header. */
export const isHttpsUrl = (url: string): boolean => {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * POSTs a JSON payload to a user's webhook with `Authorization: Bearer {secret}`: 10 s per attempt,
 * retried after 1, 4 and 15 s on a network error or a 408/429/5xx; every failure is logged (never
 * the secret). Resolves true when the hook answered 2xx. Callers never await it on a request path.
 * The URL is the user's: under the SSRF guard (lib/outbound-guard.ts) it reaches public addresses only.
 */
export async function deliverWebhook(
  target: WebhookTarget,
  payload: unknown,
  caFile: string,
  guard: FetchGuard,
  log: WebhookLog,
  delays = retryDelaysMs,
): Promise<boolean> {
  if (!isHttpsUrl(target.url)) {
    log.warn({ url: target.url.slice(0, 200) }, 'webhook skipped: only https URLs are called');
    return false;
  }
  const problem = outboundUrlProblem(target.url, guard);
  if (problem) {
    log.warn({ url: new URL(target.url).origin, reason: problem }, 'webhook skipped: refused by the SSRF protection');
    return false;
  }
  const body = JSON.stringify(payload);
  for (let attempt = 0; ; attempt += 1) {
    let reason: object;
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(target.secret ? { Authorization: `Bearer ${target.secret}` } : {}) },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(attemptTimeoutMs),
        // undici's dispatcher: the extra CA, when configured.
        ...({ dispatcher: callbackDispatcher(caFile, guard) } as object),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return true;
      reason = { status: response.status };
      const isRetryable = response.status === 408 || response.status === 429 || response.status >= 500;
      if (!isRetryable) {
        log.warn({ url: new URL(target.url).origin, ...reason }, 'webhook refused the notification');
        return false;
      }
    } catch (error) {
      const blocked = blockedCause(error);
      if (blocked) {
        log.warn({ url: new URL(target.url).origin, reason: blocked.message }, 'webhook skipped: refused by the SSRF protection');
        return false;
      }
      reason = { err: error instanceof Error ? error.message : String(error) };
    }
    if (attempt >= delays.length) {
      log.error({ url: new URL(target.url).origin, attempts: attempt + 1, ...reason }, 'webhook failed; notification dropped');
      return false;
    }
    log.warn({ url: new URL(target.url).origin, attempt: attempt + 1, ...reason }, 'webhook failed; retrying');
    await new Promise((resolve) => setTimeout(resolve, delays[attempt]).unref?.());
  }
}
