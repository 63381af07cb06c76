import { UpstreamError } from '../../errors.js';

/** Statuses of Bedrock's exception types, for exceptions that arrive inside a stream. */
const exceptionStatus: Record<string, number> = {
  validationexception: 400,
  accessdeniedexception: 403,
  resourcenotfoundexception: 404,
  modeltimeoutexception: 408,
  modelnotreadyexception: 429,
  throttlingexception: 429,
  servicequotaexceededexception: 429,
  modelerrorexception: 424,
  internalserverexception: 500,
  modelstreamerrorexception: 500,
  serviceunavailableexception: 503,
};

/** Exception names by HTTP status, for bodies that carry only `{"message"}`. */
const codeOfStatus: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

/** Bedrock errors: HTTP 4xx/5xx with `{"message"}` (sometimes `Message`, `__type`). */
export function parseBedrockError(status: number, bodyText: string): { message: string; code: string | null } {
  let message = '';
  let code: string | null = null;
  try {
    const parsed = JSON.parse(bodyText) as Record<string, unknown>;
    const raw = parsed.message ?? parsed.Message;
    if (typeof raw === 'string') message = raw;
    if (typeof parsed.__type === 'string') code = parsed.__type.split('#').pop() ?? null;
  } catch {
    message = bodyText.trim().slice(0, 300);
  }
  return { message: message || `upstream status ${status}`, code: code ?? codeOfStatus[status] ?? null };
}

export const isBedrockException = (event: string | null) => event !== null && /exception$/i.test(event);

/** An exception frame of the event stream → an UpstreamError with the status its type stands for. */
export function bedrockStreamError(event: string, data: string): UpstreamError {
  const status = exceptionStatus[event.toLowerCase()] ?? 500;
  const { message } = parseBedrockError(status, data);
  return new UpstreamError(status, message, event, data);
}
