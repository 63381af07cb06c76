import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDataValueError } from '../lib/db-errors.js';
import { AppError } from '../lib/errors.js';
import { JsonBodyError } from '../lib/json-body.js';
import { fail } from '../lib/envelope.js';
import { isRelayPath } from '../lib/relay-paths.js';
import { requestLanguage, translate } from '../lib/i18n/index.js';

/** Relay paths are answered with OpenAI-shaped errors instead of the management envelope (one list: lib/relay-paths.ts). */
export { isRelayPath };

export function openAiError(message: string, type: string, code: string | null = null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

function send(request: FastifyRequest, reply: FastifyReply, status: number, message: string, code: string) {
  reply.code(status);
  if (isRelayPath(request.url)) {
    const type = status >= 500 ? 'server_error' : status === 429 ? 'rate_limit_error' : 'invalid_request_error';
    return reply.send(openAiError(translate(message, requestLanguage(request)), type, code));
  }
  return reply.send(fail(message));
}

/**
 * Fastify's own refusals before routing (`frameworkErrors`): a URL with a malformed escape, or a path
 * parameter longer than the router's maxParamLength. Answered in the caller's shape like any other
 * error; Fastify's default answer has neither shape and repeats the whole path back.
 */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [status, message, code] =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [414, '请求地址过长', 'uri_too_long']
      : error.code === 'FST_ERR_BAD_URL'
        ? [400, '请求地址无效', 'invalid_url']
        : [400, '请求无效', 'invalid_request'];
  if (isRelayPath(request.url)) {
    void send(request, reply, status, message, code);
    return;
  }
  // No route, so no /api hook: the message is put in the caller's language here.
  void reply.code(status).send(fail(translate(message, requestLanguage(request))));
}

/** Turns every thrown error into a 4xx/5xx answer; details of a 500 stay in the server log. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof JsonBodyError && error.reason === 'invalid_request')
      return send(request, reply, 400, '请求体不是合法的 JSON', 'invalid_json');
    if (error instanceof AppError) {
      if (error.retryAfterMs !== null) reply.header('retry-after', String(Math.ceil(error.retryAfterMs / 1000)));
      return send(request, reply, error.status, error.message, error.code);
    }
    const fastifyError = error as FastifyError;
    const status = fastifyError.statusCode ?? 500;
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return send(request, reply, 413, '请求体过大', 'payload_too_large');
    }
    if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return send(request, reply, 415, '不支持的 Content-Type', 'unsupported_media_type');
    }
    if (status === 400 && (error instanceof SyntaxError || fastifyError.code?.startsWith('FST_ERR_CTP'))) {
      return send(request, reply, 400, '请求体不是合法的 JSON', 'invalid_json');
    }
    if (status >= 400 && status < 500) {
      return send(request, reply, status, fastifyError.message || '请求无效', 'invalid_request');
    }
    if (isDataValueError(error)) {
      // A value the request schema should have refused; logged so the schema gets fixed.
      request.log.warn({ err: error }, 'database refused a request value');
      return send(request, reply, 400, '参数超出范围或格式不正确', 'invalid_request');
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(request, reply, 500, '服务器内部错误，请联系管理员', 'internal_error');
  });
}
