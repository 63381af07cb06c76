import { maxUsageTokens } from './usage-count.js';

/**
 * Audio billed by its length counts this many tokens a minute (new-api's rate), priced as audio
 * input: modelRatio × audioRatio (docs/relay.md "Audio"; the defaults in default-ratios.ts make
 * whisper-1 cost US$0.006 a minute).
 */
export const audioTokensPerMinute = 1000;

/**
 * Tokens of `seconds` of audio: started seconds (rounded up, as new-api does) × 1,000 / 60, rounded;
 * 0 for anything that is not a positive finite number. 9 s → 150, 60 s → 1,000, 0.2 s → 17.
 */
export function audioSecondsToTokens(seconds: number): number {
  if (!(seconds > 0) || !Number.isFinite(seconds)) return 0;
  const tokens = Math.round((Math.ceil(seconds) * audioTokensPerMinute) / 60);
  return Math.min(tokens, maxUsageTokens);
}
