/**
 * The thresholds Gemini's `safetySettings` take (HarmBlockThreshold, Gemini API and Vertex AI). The
 * threshold of `gemini.safety_settings` goes into every Gemini call, so any other value made every
 * call of the model come back as an upstream 400: it is refused on save and read as OFF when stored.
 */
export const safetyThresholds = [
  'OFF',
  'BLOCK_NONE',
  'BLOCK_ONLY_HIGH',
  'BLOCK_MEDIUM_AND_ABOVE',
  'BLOCK_LOW_AND_ABOVE',
  'HARM_BLOCK_THRESHOLD_UNSPECIFIED',
] as const;

const known = new Set<string>(safetyThresholds);

export const isSafetyThreshold = (value: string): boolean => known.has(value);
