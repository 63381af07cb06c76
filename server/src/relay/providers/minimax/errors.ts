import { UpstreamError } from '../../errors.js';
import { parseOpenAiError } from '../openai/errors.js';

/**
 * MiniMax `base_resp.status_code` → the HTTP status failover and auto-disable read
 * (docs/providers.md): 1004/2049 authentication 401; 1008 insufficient balance 403 (the key cannot
 * serve until topped up: retried elsewhere and auto-disabled); 1002/1039/1041/2045 rate and token
 * limits 429; 1026/1027 content policy and 2013 bad parameters 400; anything else 500.
 */
const statusByCode: Record<number, number> = {
  1004: 401,
  2049: 401,
  1008: 403,
  1002: 429,
  1039: 429,
  1041: 429,
  2045: 429,
  1026: 400,
  1027: 400,
  2013: 400,
};

export const miniMaxStatusOf = (code: number): number => statusByCode[code] ?? 500;

/** An answer whose `base_resp.status_code` is not 0 as an UpstreamError; null when it succeeded. */
export function miniMaxErrorOf(json: Record<string, unknown>, bodyText: string): UpstreamError | null {
  const base = json.base_resp as { status_code?: unknown; status_msg?: unknown } | undefined;
  if (!base || typeof base !== 'object') return null;
  const code = typeof base.status_code === 'string' ? Number(base.status_code) : base.status_code;
  if (typeof code !== 'number' || !Number.isFinite(code) || code === 0) return null;
  const message = typeof base.status_msg === 'string' && base.status_msg ? base.status_msg : `MiniMax 返回错误 ${code}`;
  return new UpstreamError(miniMaxStatusOf(code), message, String(code), bodyText);
}

/** Error bodies: `base_resp{status_code, status_msg}`, else OpenAI's shape. */
export function parseMiniMaxError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const failure = miniMaxErrorOf(JSON.parse(bodyText) as Record<string, unknown>, bodyText);
    if (failure) return { message: failure.message, code: failure.upstreamCode };
  } catch {
    // not JSON
  }
  return parseOpenAiError(status, bodyText);
}
