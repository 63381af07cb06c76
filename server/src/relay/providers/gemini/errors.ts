import { UpstreamError } from '../../errors.js';

/** Google's error envelope `{"error":{"code","message","status"}}` (also as a one-element array). */
export function parseGoogleError(status: number, bodyText: string): { message: string; code: string | null; status?: number } {
  try {
    let parsed = JSON.parse(bodyText) as unknown;
    if (Array.isArray(parsed)) parsed = parsed[0];
    const error = (parsed as { error?: unknown } | null)?.error;
    if (error && typeof error === 'object') {
      const fields = error as Record<string, unknown>;
      const code = fields.status ?? fields.code;
      return {
        message: typeof fields.message === 'string' && fields.message ? fields.message : `upstream status ${status}`,
        code: typeof code === 'string' || typeof code === 'number' ? String(code) : null,
        // Google answers an invalid API key with 400 (reason API_KEY_INVALID): it is the key's fault.
        ...(status === 400 && bodyText.includes('API_KEY_INVALID') ? { status: 401 } : {}),
      };
    }
  } catch {
    // not JSON
  }
  const text = bodyText.trim().slice(0, 300);
  return { message: text || `upstream status ${status}`, code: null };
}

/**
 * Throws an UpstreamError (status = the error's numeric code, so failover reads `retryable`) when a
 * stream event carries `{"error":{...}}` (Gemini can fail mid-stream, e.g. 503 overloaded).
 */
export function throwIfStreamError(event: Record<string, unknown>): void {
  const error = event.error as Record<string, unknown> | undefined;
  if (!error || typeof error !== 'object') return;
  const status = typeof error.code === 'number' ? error.code : 500;
  const body = JSON.stringify({ error });
  const parsed = parseGoogleError(status, body);
  throw new UpstreamError(status, parsed.message, parsed.code, body);
}
