import { usageCount } from '../billing/usage-count.js';
import type { Json } from '@modelgate/shared';

/** Token counts of a realtime session, summed over every `response.done` event. */
export interface RealtimeUsage {
  responses: number;
  textInputTokens: number;
  audioInputTokens: number;
  /** Parts of the text / audio input served from the prompt cache. */
  cachedTextTokens: number;
  cachedAudioTokens: number;
  textOutputTokens: number;
  audioOutputTokens: number;
}

export const emptyRealtimeUsage = (): RealtimeUsage => ({
  responses: 0,
  textInputTokens: 0,
  audioInputTokens: 0,
  cachedTextTokens: 0,
  cachedAudioTokens: 0,
  textOutputTokens: 0,
  audioOutputTokens: 0,
});

export const inputTokensOf = (usage: RealtimeUsage) => usage.textInputTokens + usage.audioInputTokens;
export const outputTokensOf = (usage: RealtimeUsage) => usage.textOutputTokens + usage.audioOutputTokens;
export const cachedTokensOf = (usage: RealtimeUsage) => usage.cachedTextTokens + usage.cachedAudioTokens;

/**
 * A counter (clamped by usageCount, which also reads a decimal integer string as its number), or null
 * when absent or not a usable count (then a fallback applies).
 */
const count = (value: unknown): number | null =>
  (typeof value === 'number' && value >= 0) || (typeof value === 'string' && /^\d{1,10}$/.test(value)) ? usageCount(value) : null;
const objectOf = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});

/**
 * Adds one `response.usage` object: `input_token_details.{text,audio,cached}_tokens` (with
 * `cached_tokens_details.{text,audio}_tokens` when sent) and `output_token_details.{text,audio}_tokens`.
 * A missing text count is the total minus audio; cache without a split is attributed to text first,
 * and a split never puts more tokens in the cache than `cached_tokens` says it holds.
 */
export function addResponseUsage(total: RealtimeUsage, raw: unknown): void {
  const usage = objectOf(raw);
  const input = objectOf(usage.input_token_details);
  const output = objectOf(usage.output_token_details);
  const inputTokens = count(usage.input_tokens) ?? 0;
  const outputTokens = count(usage.output_tokens) ?? 0;
  const audioIn = count(input.audio_tokens) ?? 0;
  const textIn = count(input.text_tokens) ?? Math.max(0, inputTokens - audioIn);
  const cached = Math.min(count(input.cached_tokens) ?? 0, textIn + audioIn);
  const split = objectOf(input.cached_tokens_details);
  const cachedAudio = Math.min(audioIn, cached, count(split.audio_tokens) ?? Math.max(0, cached - textIn));
  const cachedText = Math.min(textIn, Math.max(0, cached - cachedAudio));
  const audioOut = count(output.audio_tokens) ?? 0;
  const textOut = count(output.text_tokens) ?? Math.max(0, outputTokens - audioOut);
  total.responses += 1;
  total.textInputTokens += textIn;
  total.audioInputTokens += audioIn;
  total.cachedTextTokens += cachedText;
  total.cachedAudioTokens += cachedAudio;
  total.textOutputTokens += textOut;
  total.audioOutputTokens += audioOut;
}

const doneMarker = Buffer.from('"response.done"');

/**
 * Reads one upstream text frame; adds its usage when it is a `response.done` event and returns true.
 * Frames that cannot be one (audio deltas and the rest) are skipped without parsing.
 */
export function readServerEvent(total: RealtimeUsage, frame: Buffer): boolean {
  if (!frame.includes(doneMarker)) return false;
  let event: Json;
  try {
    event = objectOf(JSON.parse(frame.toString('utf8')));
  } catch {
    return false;
  }
  if (event.type !== 'response.done') return false;
  addResponseUsage(total, objectOf(event.response).usage);
  return true;
}
