import { UpstreamError } from '../../errors.js';
import { FormData } from 'undici';
import type { ProviderAdapter, UpstreamRequest, UpstreamResponse, UpstreamTarget } from '../types.js';
import { sendUpstream } from '../upstream-request.js';

const timeout = { headersTimeout: 60_000, bodyTimeout: 60_000 };
/**
 * The whole exchange, answer included, when the caller gives no signal: undici's timeouts are idle
 * timers, which an upstream that sends a byte now and then keeps from ever firing.
 */
export const taskExchangeMs = 120_000;
/** A task proxy's answer larger than this is refused (a hostile or broken upstream). */
const maxBytes = 4 * 1024 * 1024;

/**
 * Sends one request of a task platform (Suno, Midjourney) over the one request path and reads its
 * JSON answer, bounded. Anything the upstream does wrong (no connection, a non-2xx, a bad answer) is
 * an UpstreamError; any other error is the gateway's. A non-2xx throws an UpstreamError with the provider's message and status
 * (failover decides on it); a 2xx that is not JSON is a 502. `signal` ends the request and the reading
 * of its answer (the poller's deadline, a submit's: an answer that trickles in forever is no answer);
 * without one the exchange is bounded by `taskExchangeMs`.
 */
export async function sendTaskJson(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  request: UpstreamRequest,
  platform: string,
  signal?: AbortSignal,
): Promise<unknown> {
  // Serialised before the connection: a body the gateway cannot write is its own failure, not the channel's.
  const { body } = request;
  const serialized =
    typeof body === 'object' && !(body instanceof FormData) && !(body instanceof Uint8Array) && !adapter.transport
      ? { ...request, body: JSON.stringify(body) }
      : request;
  let response: UpstreamResponse;
  const deadline = signal ?? AbortSignal.timeout(taskExchangeMs);
  try {
    response = await sendUpstream(adapter, serialized, { ...timeout, dispatcher: target.dispatcher, signal: deadline });
  } catch (error) {
    throw new UpstreamError(0, `上游连接失败：${(error as Error).message}`, null, '');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        await response.body.dump?.().catch(() => undefined);
        throw new UpstreamError(502, `${platform} 上游的回答过大`, 'upstream_bad_response', '');
      }
    }
  } catch (error) {
    // The answer broke off or ran past the deadline: the upstream's failure, not the gateway's.
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(0, `读取上游响应失败：${(error as Error).message}`, null, '');
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const parsed = adapter.errors.parse(response.statusCode, text);
    throw new UpstreamError(parsed.status ?? response.statusCode, parsed.message, parsed.code, text);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UpstreamError(502, `${platform} 上游返回的不是 JSON：${text.slice(0, 200)}`, 'upstream_bad_response', text);
  }
}

/** A task time as the task columns hold it (unix seconds): proxies report seconds or milliseconds. */
export function epochSeconds(value: unknown): number {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number) || number <= 0) return 0;
  const seconds = Math.floor(number > 1e11 ? number / 1000 : number);
  // Past the year 9999 it is no time at all (and 1e300 fits no database's bigint).
  return seconds <= lastSecond ? seconds : 0;
}

/** 9999-12-31T23:59:59Z. */
const lastSecond = 253_402_300_799;

/**
 * A channel refused a task for the request's own sake (Midjourney's banned prompt, a validation
 * error): it is not tried elsewhere, nothing is billed, and the caller gets the platform's answer.
 */
export class TaskRefusal extends Error {
  constructor(
    readonly answer: Record<string, unknown>,
    message: string,
  ) {
    super(message);
  }
}
