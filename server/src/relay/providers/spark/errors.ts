import { UpstreamError } from '../../errors.js';
import type { Json } from '@modelgate/shared';

/**
 * `header.code` → the status the failure stands for (iFlytek's error code table): 11200 (the app
 * is not authorised) 401; 11201–11203 (daily, per-second and concurrency limits) and 10110 (busy)
 * 429; content refused (10013, 10014, 10019), too long (10907) and bad parameters (10160–10163,
 * 10222) 400; anything else 500.
 */
export function sparkStatusOf(code: number): number {
  if (code === 11200) return 401; // no authorization for this app / capability: the key's fault
  if (code === 11201 || code === 11202 || code === 11203 || code === 10110) return 429; // daily / second / concurrency limits, server busy
  if (
    code === 10013 ||
    code === 10014 ||
    code === 10019 ||
    code === 10907 ||
    code === 10163 ||
    code === 10160 ||
    code === 10161 ||
    code === 10222
  )
    return 400; // content refused, too long, bad parameters
  return 500;
}

/** A response frame with `header.code ≠ 0` as an UpstreamError (the server closes the socket after it). */
export function throwIfSparkError(frame: Json, raw: string): void {
  const header = frame.header as Json | undefined;
  const code = typeof header?.code === 'number' ? header.code : 0;
  if (code === 0) return;
  const message = typeof header?.message === 'string' && header.message ? header.message : `讯飞星火错误 ${code}`;
  throw new UpstreamError(sparkStatusOf(code), message, String(code), raw);
}

/** A refused handshake (HTTP 401/403 with `{"message": …}`) or any other error body. */
export function parseSparkError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const parsed = JSON.parse(bodyText) as Json;
    const header = parsed.header as Json | undefined;
    if (header && typeof header.message === 'string')
      return { message: header.message, code: typeof header.code === 'number' ? String(header.code) : null };
    if (typeof parsed.message === 'string') return { message: parsed.message, code: null };
  } catch {
    // not JSON
  }
  return { message: bodyText.trim().slice(0, 300) || `upstream status ${status}`, code: null };
}
