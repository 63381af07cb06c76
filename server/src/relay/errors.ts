import type { FastifyError } from 'fastify';
import { AppError } from '../lib/errors.js';

/**
 * The relay's one error type. Everything the /v1 path rejects or fails with is a RelayError; the
 * relay plugin writes it OpenAI-shaped. `retryable` drives failover (see docs/relay.md), never
 * the message text.
 */
export type RelayErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'rate_limit_error' | 'server_error' | 'upstream_error';

export class RelayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryable = false,
    readonly type: RelayErrorType = defaultType(status),
  ) {
    super(message);
    this.name = 'RelayError';
  }

  toBody(): { error: { message: string; type: string; param: null; code: string } } {
    return { error: { message: this.message, type: this.type, param: null, code: this.code } };
  }
}

function defaultType(status: number): RelayErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** A failed upstream call: the status we got (0 for a network error) and the upstream's message. */
export class UpstreamError extends RelayError {
  constructor(
    status: number,
    message: string,
    readonly upstreamCode: string | null,
    readonly upstreamBody: string,
  ) {
    super(status === 0 ? 502 : status, upstreamCode ?? (status === 0 ? 'upstream_unreachable' : 'upstream_error'), message, isRetryableStatus(status), status >= 500 || status === 0 ? 'upstream_error' : defaultType(status));
    this.name = 'UpstreamError';
    this.upstreamStatus = status;
  }
  readonly upstreamStatus: number;
}

/**
 * Failover rules: a network error (0), 408, 429, 401/403 (a channel key problem another channel may
 * not have) and every 5xx except 504 and 524 (the upstream already spent the whole time; trying again
 * would double the wait) are retried on another channel. 400, 404, 413, 422 and other client
 * errors are the request's fault and are returned at once.
 */
export function isRetryableStatus(status: number): boolean {
  if (status === 0 || status === 408 || status === 429 || status === 401 || status === 403) return true;
  if (status === 504 || status === 524) return false;
  return status >= 500 && status <= 599;
}

export const relayErrors = {
  invalidToken: (message = '无效的令牌') => new RelayError(401, 'invalid_api_key', message),
  forbidden: (code: string, message: string) => new RelayError(403, code, message),
  badRequest: (message: string, code = 'invalid_request') => new RelayError(400, code, message),
  noChannel: (group: string, model: string) =>
    new RelayError(503, 'model_not_found', `当前分组 ${group} 下对于模型 ${model} 无可用渠道`),
  rateLimited: (message: string) => new RelayError(429, 'rate_limit_exceeded', message),
  /** The client went away (499, nginx's "client closed request"; clientStatus gives the wire status). */
  clientClosed: () => new RelayError(499, 'client_closed', '客户端已断开'),
};

/** The HTTP status an error is answered with: 499 (client gone) has no wire form and goes out as 400. */
export function clientStatus(error: RelayError): number {
  return error.status === 499 ? 400 : error.status;
}

/** Any error of a relay route as a RelayError (unknown errors are logged and become a 500). */
export function toRelayError(error: FastifyError | Error, log: { error(object: object, message: string): void }): RelayError {
  let relayError: RelayError;
  if (error instanceof RelayError) relayError = error;
  else if (error instanceof AppError) relayError = new RelayError(error.status, error.code, error.message);
  else {
    const status = (error as FastifyError).statusCode ?? 500;
    if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') relayError = new RelayError(413, 'payload_too_large', '请求体过大');
    else if (status >= 400 && status < 500) relayError = new RelayError(status, 'invalid_request', error.message || '请求无效');
    else {
      log.error({ err: error }, 'relay error');
      relayError = new RelayError(500, 'internal_error', '服务器内部错误，请联系管理员');
    }
  }
  return relayError;
}
