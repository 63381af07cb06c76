/**
 * Path params of `/v1beta/models/{model}:{action}`. Accepted shapes: `{ model, action }`, or one
 * param holding `gemini-2.5-flash:streamGenerateContent` (`model` or `modelAction`); a leading
 * `models/` is dropped.
 */
export function parseModelPath(params: Record<string, string>): { model: string; action: string } {
  const raw = params.modelAction ?? params.model ?? params['*'] ?? '';
  const colon = raw.lastIndexOf(':');
  const model = (colon >= 0 ? raw.slice(0, colon) : raw).replace(/^models\//, '');
  const action = params.action ?? (colon >= 0 ? raw.slice(colon + 1) : 'generateContent');
  return { model, action };
}

export const isStreamAction = (action: string) => action === 'streamGenerateContent';
