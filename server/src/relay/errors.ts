import type { FastifyError } from 'fastify';
import { AppError } from '../lib/errors.js';
import { JsonBodyError } from '../lib/json-body.js';
import { translate, type Language } from '../lib/i18n/index.js';

/**
 * The relay's one error type. Everything the /v1 path rejects or fails with is a RelayError; the
 * relay plugin writes it OpenAI-shaped. `retryable` drives failover (see docs/relay.md), never
 * the message text. Messages are written in Chinese; a writer tells the caller `inLanguage` (English
 * unless Accept-Language asks for Chinese), and `type` and `code` stay the same in every language.
 */
export type RelayErrorType =
  'invalid_request_error' | 'authentication_error' | 'permission_error' | 'rate_limit_error' | 'server_error' | 'upstream_error';

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

  /** How long the caller should wait before retrying (an upstream's Retry-After), in ms; null when unknown. */
  retryAfterMs: number | null = null;

  toBody(): { error: { message: string; type: string; param: null; code: string } } {
    return { error: { message: this.message, type: this.type, param: null, code: this.code } };
  }

  /** This error as the caller is told it: the message in its language (lib/i18n); all else unchanged. */
  inLanguage(language: Language): RelayError {
    const message = translate(this.message, language);
    if (message === this.message) return this;
    const told = new RelayError(this.status, this.code, message, this.retryable, this.type);
    told.retryAfterMs = this.retryAfterMs;
    return told;
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
    super(
      status === 0 ? 502 : status,
      upstreamCode ?? (status === 0 ? 'upstream_unreachable' : 'upstream_error'),
      message,
      isRetryableStatus(status),
      status >= 500 || status === 0 ? 'upstream_error' : defaultType(status),
    );
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

/** How many characters of a caller's name (a model, a group) an error message repeats. */
const maxShownNameChars = 100;

/**
 * A name the caller sent, as an error message repeats it: cut to maxShownNameChars (with `…`), so an
 * answer never echoes a huge value back and stays short enough to be translated (lib/i18n/translate.ts).
 */
export function shownName(name: string): string {
  return name.length > maxShownNameChars ? `${name.slice(0, maxShownNameChars)}…` : name;
}

export const relayErrors = {
  invalidToken: (message = '无效的令牌') => new RelayError(401, 'invalid_api_key', message),
  forbidden: (code: string, message: string) => new RelayError(403, code, message),
  badRequest: (message: string, code = 'invalid_request') => new RelayError(400, code, message),
  /**
   * No enabled channel serves the model in the caller's group: a configuration matter no retry
   * within seconds can change, so a 404 (OpenAI's own answer for a model one cannot use), which
   * the SDKs do not retry — a 503 would make each of them ask three times.
   */
  noChannel: (group: string, model: string) =>
    new RelayError(
      404,
      'model_not_found',
      `当前分组 ${shownName(group)} 下对于模型 ${shownName(model)} 无可用渠道`,
      false,
      'invalid_request_error',
    ),
  /** A model some channel serves but no price covers: says what an admin can do about it. */
  unpriced: (model: string) =>
    new RelayError(
      400,
      'model_price_error',
      `模型 ${shownName(model)} 尚未设置价格：请管理员在运营设置中为它设置模型倍率或按次价格，或开启自用模式`,
    ),
  /** A task action (Midjourney, Suno) with no per-call price. */
  unpricedTask: (model: string) =>
    new RelayError(
      400,
      'model_price_error',
      `模型 ${shownName(model)} 尚未设置按次价格：请管理员在运营设置中为它设置按次价格，或开启自用模式`,
    ),
  rateLimited: (message: string) => new RelayError(429, 'rate_limit_exceeded', message),
  /** The client went away (499, nginx's "client closed request"; clientStatus gives the wire status). */
  clientClosed: () => new RelayError(499, 'client_closed', '客户端已断开'),
  /**
   * Whole upstream answers being read hold MAX_ANSWER_MEMORY_MB: the instance is busy, no channel's
   * fault (another would meet the same budget), so a 503 to retry shortly.
   */
  answersBusy: () => {
    const error = new RelayError(503, 'busy', '服务器正在读取的上游响应过多，请稍后重试', true, 'server_error');
    error.retryAfterMs = 1000;
    return error;
  },
  /** A Realtime upstream sent a message past the gateway's limit; the session ends. */
  upstreamMessageTooLarge: (maxBytes: number) =>
    new RelayError(502, 'upstream_message_too_large', `上游消息超过 ${maxBytes / 1024 / 1024} MiB`, false, 'upstream_error'),
};

/** The HTTP status an error is answered with: 499 (client gone) has no wire form and goes out as 400. */
export function clientStatus(error: RelayError): number {
  return error.status === 499 ? 400 : error.status;
}

/**
 * Upstream statuses that mean the caller's request was at fault (a bad parameter, context too long,
 * content policy, unknown model, too large): their message helps the caller and is kept, redacted.
 * Every other failure (401/402/403 of the channel's key, 408, 429, 5xx, no answer) is the channel's.
 */
const callerFaultStatuses = new Set([400, 404, 413, 415, 422]);

const keyPatterns: Array<[RegExp, string]> = [
  [/\b(?:sk|pk|rk|ak)-[A-Za-z0-9*._-]{4,}/g, 'sk-***'],
  [/\bAIza[0-9A-Za-z_-]{10,}/g, 'AIza***'],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{12,}/g, '***'],
  [/\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+){1,2}/g, '***'],
  [/\b(Bearer|Basic|Token)\s+[^\s"',;]+/gi, '$1 ***'],
  [/\b((?:api[_-]?key|access[_-]?token|secret|password)\s*[=:]\s*)[^\s"',;&]+/gi, '$1***'],
];

/** Besides keys, what a caller never sees: upstream URLs, hosts, IP:port, and long opaque tokens (keys without a known prefix). */
const callerPatterns: Array<[RegExp, string]> = [
  [/\b(?=[A-Za-z_-]*\d)(?=[0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}\b/g, '***'],
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi, '[upstream]'],
  [/\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d+)?/gi, '[upstream]'],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '[upstream]'],
  [
    /\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|ai|cn|dev|app|cloud|co|xyz|internal|local|localdomain|lan|svc|cluster|corp|intra|azure|amazonaws)\b(?::\d{1,5})?/gi,
    '[upstream]',
  ],
  [/\blocalhost(?::\d{1,5})?\b/gi, '[upstream]'],
  [/\b[a-z][a-z0-9.-]*:\d{2,5}\b/gi, '[upstream]'],
];

/** Upstream text without key-like strings (sk-…, AIza…, bearer tokens, key=…); for logs and users. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of keyPatterns) out = out.replace(pattern, replacement);
  return out;
}

/** Upstream text fit for a caller: no keys (nor long opaque tokens) and no upstream URLs, hosts or IP:port. */
export function redactUpstreamText(text: string): string {
  let out = redactSecrets(text);
  for (const [pattern, replacement] of callerPatterns) out = out.replace(pattern, replacement);
  return out.length > 500 ? `${out.slice(0, 500)}…` : out;
}

const safeCode = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const misleadingCodes = new Set([
  'invalid_api_key',
  'authentication_error',
  'permission_error',
  'insufficient_quota',
  'billing_error',
  'account_deactivated',
]);

/**
 * What a caller is told of a failed upstream call; the one classification of upstream failures. A
 * failure that is not the caller's fault is a gateway error with a generic message (never
 * `invalid_api_key`, which means the caller's own token); a caller's fault keeps its message and
 * code, redacted. `status` overrides the answer's status (the channel's status code mapping).
 */
export function publicErrorOf(error: UpstreamError, status?: number): RelayError {
  const answer = classify(error, status);
  answer.retryAfterMs = error.retryAfterMs;
  return answer;
}

function classify(error: UpstreamError, status?: number): RelayError {
  const upstream = error.upstreamStatus;
  if (callerFaultStatuses.has(upstream)) {
    const code =
      error.upstreamCode !== null && safeCode.test(error.upstreamCode) && !misleadingCodes.has(error.upstreamCode)
        ? error.upstreamCode
        : 'upstream_invalid_request';
    return new RelayError(status ?? upstream, code, redactUpstreamText(error.message) || '上游拒绝了请求', false, 'invalid_request_error');
  }
  if (upstream === 429) return new RelayError(status ?? 429, 'upstream_rate_limited', '上游服务繁忙，请稍后再试', true, 'rate_limit_error');
  if (upstream === 408 || upstream === 504 || upstream === 524)
    return new RelayError(status ?? 504, 'upstream_timeout', '上游服务响应超时，请稍后再试', error.retryable, 'upstream_error');
  if (upstream === 0)
    return new RelayError(status ?? 502, 'upstream_unreachable', '上游服务暂时不可用，请稍后再试', true, 'upstream_error');
  const answerStatus = status ?? (upstream >= 500 && upstream <= 599 ? upstream : 502);
  return new RelayError(answerStatus, 'upstream_error', '上游服务出错，请稍后再试或联系管理员', error.retryable, 'upstream_error');
}

/** The log fields of a failed upstream call: status, code and text with key-like strings removed. */
export function upstreamLogFields(error: UpstreamError, channelId?: number): Record<string, unknown> {
  return {
    channelId,
    upstreamStatus: error.upstreamStatus,
    upstreamCode: error.upstreamCode,
    upstreamMessage: redactSecrets(error.message),
    upstreamBody: redactSecrets(error.upstreamBody.slice(0, 2000)),
  };
}

/**
 * Any error of a relay route as the caller is told it, in its language (unknown errors are logged
 * and become a 500). Every relay error writer goes through here.
 */
export function toRelayError(
  error: FastifyError | Error,
  log: { error(object: object, message: string): void },
  language: Language,
): RelayError {
  let relayError: RelayError;
  if (error instanceof UpstreamError) {
    log.error(upstreamLogFields(error), 'upstream failure');
    relayError = publicErrorOf(error);
  } else if (error instanceof RelayError) relayError = error;
  else if (error instanceof JsonBodyError) relayError = new RelayError(400, error.reason, error.message);
  else if (error instanceof AppError) {
    relayError = new RelayError(error.status, error.code, error.message);
    relayError.retryAfterMs = error.retryAfterMs;
  } else {
    const status = (error as FastifyError).statusCode ?? 500;
    if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') relayError = new RelayError(413, 'payload_too_large', '请求体过大');
    else if (status >= 400 && status < 500) relayError = new RelayError(status, 'invalid_request', error.message || '请求无效');
    else {
      log.error({ err: error }, 'relay error');
      relayError = new RelayError(500, 'internal_error', '服务器内部错误，请联系管理员');
    }
  }
  return relayError.inLanguage(language);
}

/** The longest wait passed on to a caller (a hostile upstream cannot park clients for days). */
const maxRetryAfterMs = 3_600_000;
const retryDelayInBody = /"retryDelay"\s*:\s*"(\d{1,7}(?:\.\d{1,9})?)s"/;

/**
 * The wait an upstream asks for on a 429 or 503: `retry-after-ms`, `retry-after` (seconds or an
 * HTTP date), or Gemini's `RetryInfo.retryDelay` ("23s") in the error body. Bounded; null when absent.
 */
export function retryAfterOf(status: number, header: (name: string) => string | undefined, body: string): number | null {
  if (status !== 429 && status !== 503) return null;
  let ms: number | null = null;
  const inMs = header('retry-after-ms');
  const after = header('retry-after');
  if (inMs !== undefined && /^\d{1,10}(\.\d+)?$/.test(inMs.trim())) ms = Number(inMs.trim());
  else if (after !== undefined && /^\d{1,10}$/.test(after.trim())) ms = Number(after.trim()) * 1000;
  else if (after !== undefined && after.length <= 64 && Number.isFinite(Date.parse(after)))
    ms = Math.max(0, Date.parse(after) - Date.now());
  else {
    const delay = retryDelayInBody.exec(body.slice(0, 64 * 1024));
    if (delay) ms = Number(delay[1]) * 1000;
  }
  return ms === null || !Number.isFinite(ms) ? null : Math.min(maxRetryAfterMs, Math.max(0, Math.round(ms)));
}

/** The Retry-After headers of an error answer (both the standard seconds and the SDKs' `retry-after-ms`). */
export function retryAfterHeaders(error: RelayError): Record<string, string> | null {
  if (error.retryAfterMs === null) return null;
  return { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)), 'retry-after-ms': String(error.retryAfterMs) };
}
