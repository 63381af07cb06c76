import { defaultCacheCreationRatioFallback } from '../../options/default-ratios.js';
import type { ModelPricing } from './pricing.js';

/** Token counts of one request, as the upstream reported them (or as we counted them). */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Part of promptTokens served from the provider's prompt cache. */
  cachedTokens: number;
  /**
   * Part of promptTokens written to the provider's prompt cache (Claude cache_creation_input_tokens),
   * billed with its own ratio. Absent means 0.
   */
  cacheCreationTokens?: number;
  /**
   * Part of promptTokens that is audio input (transcriptions: the upstream's audio tokens, or the
   * audio's length as tokens), billed with the model's audio ratio. Absent means 0.
   */
  audioInputTokens?: number;
  /**
   * Part of promptTokens that is image input (gpt-image-* edits: `input_tokens_details.image_tokens`),
   * billed with the model's image ratio. Absent means 0.
   */
  imageInputTokens?: number;
}

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });

/**
 * The quota formula (docs/billing.md):
 *   per token: round(groupRatio × modelRatio × (prompt − cached − creation − audio − image + cached × cacheRatio
 *              + creation × cacheCreationRatio + audio × audioRatio + image × imageRatio + completion × completionRatio)),
 *              at least 1 when the ratios are non-zero and tokens were used; 0 with no tokens;
 *   per call:  round(modelPrice × QuotaPerUnit × groupRatio × calls).
 */
export function computeQuota(pricing: ModelPricing, groupRatio: number, usage: Usage, quotaPerUnit: number, calls = 1): number {
  if (pricing.quotaType === 1) return Math.round(pricing.modelPrice * quotaPerUnit * groupRatio * calls);
  const prompt = Math.max(0, usage.promptTokens);
  const cached = Math.min(Math.max(0, usage.cachedTokens), prompt);
  const creation = Math.min(Math.max(0, usage.cacheCreationTokens ?? 0), prompt - cached);
  const audio = Math.min(Math.max(0, usage.audioInputTokens ?? 0), prompt - cached - creation);
  const image = Math.min(Math.max(0, usage.imageInputTokens ?? 0), prompt - cached - creation - audio);
  const weighted =
    prompt -
    cached -
    creation -
    audio -
    image +
    cached * pricing.cacheRatio +
    creation * (pricing.cacheCreationRatio ?? defaultCacheCreationRatioFallback) +
    audio * (pricing.audioRatio ?? 1) +
    image * (pricing.imageRatio ?? 1) +
    Math.max(0, usage.completionTokens) * pricing.completionRatio;
  if (weighted <= 0) return 0;
  const ratio = groupRatio * pricing.modelRatio;
  if (ratio === 0) return 0;
  return Math.max(1, Math.round(ratio * weighted));
}

/**
 * The hold taken before dispatch: prompt estimate + max_tokens (× completion ratio) when the client
 * set max_tokens, else PreConsumedQuota tokens; per-call models hold their exact price.
 */
export function estimateHold(
  pricing: ModelPricing,
  groupRatio: number,
  promptEstimate: number,
  maxTokens: number,
  preConsumedTokens: number,
  quotaPerUnit: number,
  calls = 1,
): number {
  if (pricing.quotaType === 1)
    return computeQuota(pricing, groupRatio, { promptTokens: 0, completionTokens: 0, cachedTokens: 0 }, quotaPerUnit, calls);
  const usage =
    maxTokens > 0
      ? { promptTokens: promptEstimate, completionTokens: maxTokens, cachedTokens: 0 }
      : { promptTokens: Math.max(promptEstimate, preConsumedTokens), completionTokens: 0, cachedTokens: 0 };
  return computeQuota(pricing, groupRatio, usage, quotaPerUnit);
}
