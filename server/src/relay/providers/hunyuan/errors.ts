import { UpstreamError } from '../../errors.js';
import type { Json } from '@modelgate/shared';

/**
 * Tencent Cloud error codes (`Response.Error.Code`, answered with HTTP 200) → the HTTP status the
 * relay acts on: failover and auto-disable read the status, never the text. Prefix matches; the
 * first matching row wins; anything else is 500.
 */
const codeStatuses: Array<[prefix: string, status: number]> = [
  ['AuthFailure', 401],
  ['UnauthorizedOperation', 403],
  ['ResourceUnavailable', 403],
  ['RequestLimitExceeded', 429],
  ['LimitExceeded', 429],
  ['InvalidParameter', 400],
  ['MissingParameter', 400],
  ['UnknownParameter', 400],
  ['InvalidAction', 400],
  ['ResourceInsufficient', 500],
  ['FailedOperation', 500],
  ['InternalError', 500],
];

export function hunyuanErrorStatus(code: string): number {
  return codeStatuses.find(([prefix]) => code.startsWith(prefix))?.[1] ?? 500;
}

/** `Response.Error` of an answer, if it carries one. */
export function hunyuanErrorOf(json: unknown): { code: string; message: string } | null {
  if (!json || typeof json !== 'object') return null;
  const response = (json as Json).Response as Json | undefined;
  const error = (response && typeof response === 'object' ? response.Error : undefined) as Json | undefined;
  if (!error || typeof error !== 'object') return null;
  const code = typeof error.Code === 'string' ? error.Code : 'UnknownError';
  return { code, message: typeof error.Message === 'string' && error.Message ? error.Message : code };
}

/** Throws the answer's error (an HTTP-200 error body or stream frame) as an UpstreamError. */
export function throwIfHunyuanError(json: Json, bodyText: string): void {
  const error = hunyuanErrorOf(json);
  if (error) throw new UpstreamError(hunyuanErrorStatus(error.code), error.message, error.code, bodyText);
}

/** A failed answer's message and code: Tencent's `Response.Error`, else the text. */
export function parseHunyuanError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const error = hunyuanErrorOf(JSON.parse(bodyText));
    if (error) return { message: error.message, code: error.code };
  } catch {
    // not JSON
  }
  return { message: bodyText.trim().slice(0, 300) || `upstream status ${status}`, code: null };
}
