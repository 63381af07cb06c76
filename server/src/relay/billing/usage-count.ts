import type { Usage } from './quota.js';

/**
 * Ceiling of one token count of one request (or realtime session). Upstream usage is untrusted
 * input: 1e9 tokens is far above any model's context plus output (the largest are ~10M), and keeps
 * every count (and the sums logged as prompt_tokens / completion_tokens) inside the 32-bit integer
 * columns of PostgreSQL and MySQL (2,147,483,647).
 */
export const maxUsageTokens = 1_000_000_000;

/**
 * Ceiling of the quota billed for one request: 2^40 (about 1.1e12, US$2.2M at the default
 * QuotaPerUnit). Far above any real bill, it keeps counters of bigint columns exact in JavaScript
 * numbers (sums of pending deltas stay below 2^53) and can never reach the columns' range.
 */
export const maxRequestQuota = 2 ** 40;

/**
 * One usage counter from an upstream answer as a non-negative safe integer: numbers are floored and
 * clamped to [0, maxUsageTokens]; a decimal integer string is read as its number; anything else
 * (NaN, Infinity, negative, objects, other strings) is 0. A few comparisons: it runs per answer.
 */
export function usageCount(value: unknown): number {
  if (typeof value === 'number') {
    if (!(value > 0)) return 0; // also NaN
    return value >= maxUsageTokens ? maxUsageTokens : Math.floor(value);
  }
  if (typeof value === 'string' && value.length > 0 && value.length <= 10 && /^\d+$/.test(value)) return usageCount(Number(value));
  return 0;
}

/** A quota amount clamped to [0, maxRequestQuota] as an integer (non-numbers are 0). */
export function clampQuota(value: number): number {
  if (!(value > 0)) return 0;
  return value >= maxRequestQuota ? maxRequestQuota : Math.round(value);
}

const isCount = (value: number | undefined): boolean =>
  value === undefined || (Number.isInteger(value) && value >= 0 && value <= maxUsageTokens);

/**
 * A Usage as settle() bills and logs it: every field a count (usageCount), sums of parts clamped
 * again, cached ≤ prompt, cache writes ≤ prompt − cached and audio ≤ prompt − cached − writes.
 * Returns the same object when it is already clean (the common case: no allocation on the hot path).
 */
export function clampUsage(usage: Usage): Usage {
  const { promptTokens, completionTokens, cachedTokens, cacheCreationTokens, audioInputTokens, imageInputTokens } = usage;
  if (
    isCount(promptTokens) &&
    isCount(completionTokens) &&
    isCount(cachedTokens) &&
    isCount(cacheCreationTokens) &&
    isCount(audioInputTokens) &&
    isCount(imageInputTokens) &&
    cachedTokens + (cacheCreationTokens ?? 0) + (audioInputTokens ?? 0) + (imageInputTokens ?? 0) <= promptTokens
  )
    return usage;
  const prompt = usageCount(promptTokens);
  const cached = Math.min(usageCount(cachedTokens), prompt);
  const clean: Usage = { promptTokens: prompt, completionTokens: usageCount(completionTokens), cachedTokens: cached };
  if (cacheCreationTokens !== undefined) clean.cacheCreationTokens = Math.min(usageCount(cacheCreationTokens), prompt - cached);
  if (audioInputTokens !== undefined)
    clean.audioInputTokens = Math.min(usageCount(audioInputTokens), prompt - cached - (clean.cacheCreationTokens ?? 0));
  if (imageInputTokens !== undefined)
    clean.imageInputTokens = Math.min(
      usageCount(imageInputTokens),
      prompt - cached - (clean.cacheCreationTokens ?? 0) - (clean.audioInputTokens ?? 0),
    );
  return clean;
}
