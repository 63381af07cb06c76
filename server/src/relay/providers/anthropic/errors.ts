import { UpstreamError } from '../../errors.js';

/** Anthropic error types and the HTTP statuses they come with. */
export const claudeErrorStatus: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** Reads `{"type":"error","error":{"type","message"}}`; the error type is the code. */
export function parseClaudeError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const parsed = JSON.parse(bodyText) as Record<string, unknown>;
    const error = parsed.error as Record<string, unknown> | string | undefined;
    if (error && typeof error === 'object') {
      return {
        message: typeof error.message === 'string' ? error.message : `upstream status ${status}`,
        code: typeof error.type === 'string' ? error.type : null,
      };
    }
    if (typeof error === 'string') return { message: error, code: null };
    if (typeof parsed.message === 'string') return { message: parsed.message, code: null };
  } catch {
    // not JSON
  }
  const text = bodyText.trim().slice(0, 300);
  return { message: text || `upstream status ${status}`, code: null };
}

/**
 * An `error` event inside a stream (e.g. overloaded_error mid-answer) as an UpstreamError with the
 * status its type stands for, so failover reads `retryable` (529 → true, 400 → false).
 */
export function streamErrorOf(data: string): UpstreamError {
  const status = (() => {
    try {
      const type = (JSON.parse(data) as { error?: { type?: unknown } }).error?.type;
      return typeof type === 'string' ? (claudeErrorStatus[type] ?? 500) : 500;
    } catch {
      return 500;
    }
  })();
  const { message, code } = parseClaudeError(status, data);
  return new UpstreamError(status, message, code, data);
}
