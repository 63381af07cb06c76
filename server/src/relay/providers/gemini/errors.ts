/** Google's error envelope `{"error":{"code","message","status"}}` (also as a one-element array). */
export function parseGoogleError(status: number, bodyText: string): { message: string; code: string | null } {
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
      };
    }
  } catch {
    // not JSON
  }
  const text = bodyText.trim().slice(0, 300);
  return { message: text || `upstream status ${status}`, code: null };
}

/** An `{"error":...}` event inside a Gemini stream, surfaced to the pipeline as a thrown error. */
export class GeminiStreamError extends Error {
  constructor(message: string, readonly code: string | null, readonly status: number) {
    super(message);
    this.name = 'GeminiStreamError';
  }
}

/** Throws a GeminiStreamError when a stream event carries an error object. */
export function throwIfStreamError(event: Record<string, unknown>): void {
  const error = event.error as Record<string, unknown> | undefined;
  if (!error || typeof error !== 'object') return;
  const status = typeof error.code === 'number' ? error.code : 500;
  const parsed = parseGoogleError(status, JSON.stringify({ error }));
  throw new GeminiStreamError(parsed.message, parsed.code, status);
}
