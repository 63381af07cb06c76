/**
 * One error type for the whole server. Use cases throw AppError(code, message); one map turns
 * codes into HTTP statuses; the app's error handler writes the envelope (management API) or the
 * OpenAI-shaped error (relay).
 */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'range_not_satisfiable'
  | 'rate_limited'
  | 'unavailable'
  | 'busy'
  | 'system_event_loop_overloaded'
  | 'system_cpu_overloaded'
  | 'system_memory_overloaded'
  | 'internal';

const statusByCode: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  /** A byte range past the end of what was asked for (a video's content). */
  range_not_satisfiable: 416,
  rate_limited: 429,
  /** An outside party we depend on (the mail server) failed: the request was fine, try later. */
  unavailable: 503,
  /** This instance is at a limit of its own (memory for request bodies): the same request may pass shortly. */
  busy: 503,
  /** This process is overloaded (lib/overload-guard.ts): the relay refuses new calls for a while. */
  system_event_loop_overloaded: 503,
  system_cpu_overloaded: 503,
  system_memory_overloaded: 503,
  internal: 500,
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** How long the caller should wait before trying again (sent as Retry-After), when known. */
  retryAfterMs: number | null = null;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = statusByCode[code];
  }
}

export const invalidInput = (message: string) => new AppError('invalid_input', message);
export const unauthenticated = (message = '无权进行此操作，未登录且未提供 access token') => new AppError('unauthenticated', message);
export const forbidden = (message = '无权进行此操作，权限不足') => new AppError('forbidden', message);
export const notFound = (message = '记录不存在') => new AppError('not_found', message);

export function statusOf(code: ErrorCode): number {
  return statusByCode[code];
}
