import { UpstreamError } from '../../errors.js';

/**
 * Zhipu business codes → the HTTP status failover and auto-disable read (docs/providers.md):
 * authentication 401; account locked, missing or in arrears 403 (the key cannot serve until fixed:
 * retried elsewhere and auto-disabled); concurrency, rate and daily limits 429; bad parameters,
 * unknown model, prompt too long and content policy 400; anything else 500.
 */
const statusByCode: Record<number, number> = {
  1000: 401,
  1001: 401,
  1002: 401,
  1003: 401,
  1004: 401,
  1100: 401,
  1110: 403,
  1111: 403,
  1112: 403,
  1113: 403,
  1120: 403,
  1220: 403,
  1302: 429,
  1303: 429,
  1304: 429,
  1305: 429,
  1210: 400,
  1211: 400,
  1212: 400,
  1213: 400,
  1214: 400,
  1261: 400,
  1300: 400,
  1301: 400,
};

export function zhipuStatusOf(code: unknown): number {
  return (typeof code === 'number' && statusByCode[code]) || 500;
}

/** A failed Zhipu answer (`success:false` or `code≠200`) as an UpstreamError; null when it succeeded. */
export function zhipuErrorOf(json: Record<string, unknown>, bodyText: string): UpstreamError | null {
  const code = typeof json.code === 'string' && /^\d+$/.test(json.code) ? Number(json.code) : json.code;
  if (json.success !== false && (code === undefined || code === 200)) return null;
  const message = typeof json.msg === 'string' && json.msg ? json.msg : `智谱返回错误 ${String(code)}`;
  return new UpstreamError(zhipuStatusOf(code), message, code === undefined ? null : String(code), bodyText);
}

/** Zhipu error bodies: `{code, msg, success}` (also on HTTP 4xx/5xx). */
export function parseZhipuError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const parsed = JSON.parse(bodyText) as { code?: unknown; msg?: unknown; error?: { message?: unknown; code?: unknown } };
    if (typeof parsed.msg === 'string') return { message: parsed.msg, code: parsed.code === undefined ? null : String(parsed.code) };
    if (typeof parsed.error?.message === 'string')
      return { message: parsed.error.message, code: parsed.error.code === undefined ? null : String(parsed.error.code) };
  } catch {
    // not JSON
  }
  return { message: bodyText.trim().slice(0, 300) || `upstream status ${status}`, code: null };
}
