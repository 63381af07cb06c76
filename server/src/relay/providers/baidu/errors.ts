import { UpstreamError } from '../../errors.js';
import type { Json } from '@modelgate/shared';

/**
 * Baidu `error_code` → the HTTP status failover and auto-disable read (Baidu mostly answers HTTP 200).
 * Auth (the channel key's fault, 401): 6 no permission, 13/14/15 token/IAM/app, 336004 permission.
 * 110/111 (access token invalid/expired) are not the key's fault: the cached token is forgotten and
 * the next call issues a new one (a key Baidu no longer accepts then fails there with 401), so they
 * answer 503: retried on another channel, never a reason to auto-disable this one.
 * Limits (429): 4 cluster limit, 17/18/19 daily/QPS/total limits, 336501/336502 RPM/TPM.
 * Request (400): 3, 100, 336001–336003, 336005–336008, 336103–336105. Busy (503): 2, 336100. Else 500.
 */
const statusByCode: Record<number, number> = {
  6: 401,
  13: 401,
  14: 401,
  15: 401,
  336004: 401,
  110: 503,
  111: 503,
  4: 429,
  17: 429,
  18: 429,
  19: 429,
  336501: 429,
  336502: 429,
  3: 400,
  100: 400,
  336001: 400,
  336002: 400,
  336003: 400,
  336005: 400,
  336006: 400,
  336007: 400,
  336008: 400,
  336103: 400,
  336104: 400,
  336105: 400,
  2: 503,
  336100: 503,
};

export const baiduStatusOf = (code: number): number => statusByCode[code] ?? 500;

/** Codes that mean the access token must be issued again. */
export const isTokenRejected = (code: number): boolean => code === 110 || code === 111;

const codeOf = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
  return null;
};

/** The `{error_code, error_msg}` of an answer, when it is one (a code of 0 is no error). */
export function baiduErrorCode(json: Json): { code: number; message: string } | null {
  const code = codeOf(json.error_code);
  if (code === null || code === 0) return null;
  const message = typeof json.error_msg === 'string' && json.error_msg ? json.error_msg : `百度千帆错误 ${code}`;
  return { code, message };
}

/** An answer body's error as an UpstreamError with the mapped status, or null. */
export function baiduUpstreamError(json: Json, bodyText = JSON.stringify(json)): UpstreamError | null {
  const error = baiduErrorCode(json);
  if (!error) return null;
  return new UpstreamError(baiduStatusOf(error.code), error.message, String(error.code), bodyText);
}

/** Error bodies: `{error_code, error_msg}` (API) or `{error, error_description}` (OAuth token endpoint). */
export function parseBaiduError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const json = JSON.parse(bodyText) as Json;
    const error = baiduErrorCode(json);
    if (error) return { message: error.message, code: String(error.code) };
    if (typeof json.error === 'string') {
      return { message: typeof json.error_description === 'string' ? json.error_description : json.error, code: json.error };
    }
  } catch {
    // not JSON
  }
  return { message: bodyText.trim().slice(0, 300) || `upstream status ${status}`, code: null };
}
