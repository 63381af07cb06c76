/** Reads `{"error":{"message","code","type"}}` (or a bare message) from a failed upstream body. */
export function parseOpenAiError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const parsed = JSON.parse(bodyText) as Record<string, unknown>;
    const error = parsed.error as Record<string, unknown> | string | undefined;
    if (typeof error === 'string') return { message: error, code: null };
    if (error && typeof error === 'object') {
      const code = error.code ?? error.type;
      return {
        message: typeof error.message === 'string' ? error.message : `upstream status ${status}`,
        code: typeof code === 'string' || typeof code === 'number' ? String(code) : null,
      };
    }
    if (typeof parsed.message === 'string') return { message: parsed.message, code: null };
  } catch {
    // not JSON
  }
  const text = bodyText.trim().slice(0, 300);
  return { message: text || `upstream status ${status}`, code: null };
}
