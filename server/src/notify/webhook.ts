import { Agent } from 'undici';
import { extraCa } from '../lib/extra-ca.js';

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

let agent: { caFile: string; dispatcher: Agent } | null = null;
function dispatcherFor(caFile: string): Agent {
  if (agent?.caFile !== caFile) {
    const ca = extraCa(caFile);
    agent = { caFile, dispatcher: new Agent({ connect: ca ? { ca: [ca] } : {} }) };
  }
  return agent.dispatcher;
}

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
 */
export async function deliverWebhook(target: WebhookTarget, payload: unknown, caFile: string, log: WebhookLog, delays = retryDelaysMs): Promise<boolean> {
  if (!isHttpsUrl(target.url)) {
    log.warn({ url: target.url.slice(0, 200) }, 'webhook skipped: only https URLs are called');
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
        ...({ dispatcher: dispatcherFor(caFile) } as object),
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
