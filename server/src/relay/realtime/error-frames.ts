import { UpstreamError, publicErrorOf, type RelayError } from '../errors.js';
import type { Language } from '../../lib/i18n/index.js';

/** An OpenAI-style realtime `error` server event, its message in the caller's language. */
export function errorEvent(relayError: RelayError, language: Language): string {
  const error = relayError.inLanguage(language);
  return JSON.stringify({
    type: 'error',
    event_id: `event_mg${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
    error: { type: error.type, code: error.code, message: error.message, param: null, event_id: null },
  });
}

const errorMarker = Buffer.from('"error"');
const statusOfErrorType: Record<string, number> = {
  invalid_request_error: 400,
  rate_limit_error: 429,
  authentication_error: 401,
  permission_error: 403,
};

/**
 * An upstream `error` event as the client gets it: classified and redacted like every upstream
 * error (errors.ts) and told in the caller's language, keeping the id of the client event it refers
 * to; undefined for other frames.
 */
export function clientErrorFrame(frame: Buffer, language: Language): Buffer | undefined {
  if (!frame.includes(errorMarker)) return undefined;
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(frame.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (event?.type !== 'error') return undefined;
  const error = (event.error && typeof event.error === 'object' ? event.error : {}) as Record<string, unknown>;
  const status = (typeof error.type === 'string' ? statusOfErrorType[error.type] : undefined) ?? 500;
  const upstream = new UpstreamError(
    status,
    typeof error.message === 'string' ? error.message : '',
    typeof error.code === 'string' ? error.code : null,
    frame.toString('utf8'),
  );
  const shown = publicErrorOf(upstream).inLanguage(language);
  return Buffer.from(
    JSON.stringify({
      type: 'error',
      event_id: typeof event.event_id === 'string' ? event.event_id : null,
      error: {
        type: shown.type,
        code: shown.code,
        message: shown.message,
        param: typeof error.param === 'string' ? error.param : null,
        event_id: typeof error.event_id === 'string' ? error.event_id : null,
      },
    }),
  );
}
