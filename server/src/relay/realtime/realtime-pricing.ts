import type { OptionStore } from '../../options/store.js';
import { findModelPricing, type ModelPricing } from '../billing/pricing.js';
import type { RealtimeUsage } from './usage.js';

/**
 * Realtime prices (docs/billing.md "Realtime"). Text tokens use the model's ModelRatio,
 * CompletionRatio and CacheRatio; audio tokens add two ratios, with new-api's meaning so log rows stay
 * portable across the gateway family:
 *   audioRatio           = audio input price / text input price
 *   audioCompletionRatio = audio output price / audio input price
 */
export interface RealtimePricing extends ModelPricing {
  audioRatio: number;
  audioCompletionRatio: number;
}

interface RealtimeDefaults {
  /** Text input US$/1M ÷ 2. */
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  audioRatio: number;
  audioCompletionRatio: number;
}

// List prices (US$ per 1M tokens): text in / cached in / text out; audio in / audio out.
const gpt4oRealtime: RealtimeDefaults = { modelRatio: 2.5, completionRatio: 4, cacheRatio: 0.5, audioRatio: 8, audioCompletionRatio: 2 }; // 5/2.5/20; 40/80
const gpt4oRealtime202410: RealtimeDefaults = { ...gpt4oRealtime, audioRatio: 20 }; // 5/2.5/20; 100/200
const gpt4oMiniRealtime: RealtimeDefaults = {
  modelRatio: 0.3,
  completionRatio: 4,
  cacheRatio: 0.5,
  audioRatio: 10 / 0.6,
  audioCompletionRatio: 2,
}; // 0.6/0.3/2.4; 10/20
const gptRealtime: RealtimeDefaults = { modelRatio: 2, completionRatio: 4, cacheRatio: 0.1, audioRatio: 8, audioCompletionRatio: 2 }; // 4/0.4/16; 32/64
const gptRealtimeMini: RealtimeDefaults = {
  modelRatio: 0.3,
  completionRatio: 4,
  cacheRatio: 0.1,
  audioRatio: 10 / 0.6,
  audioCompletionRatio: 2,
}; // 0.6/0.06/2.4; 10/20

export const realtimeDefaults: Readonly<Record<string, RealtimeDefaults>> = {
  'gpt-4o-realtime-preview': gpt4oRealtime,
  'gpt-4o-realtime-preview-2024-10-01': gpt4oRealtime202410,
  'gpt-4o-realtime-preview-2024-12-17': gpt4oRealtime,
  'gpt-4o-realtime-preview-2025-06-03': gpt4oRealtime,
  'gpt-4o-mini-realtime-preview': gpt4oMiniRealtime,
  'gpt-4o-mini-realtime-preview-2024-12-17': gpt4oMiniRealtime,
  'gpt-realtime': gptRealtime,
  'gpt-realtime-2025-08-28': gptRealtime,
  'gpt-realtime-mini': gptRealtimeMini,
  'gpt-realtime-mini-2025-10-06': gptRealtimeMini,
};

/**
 * The option store's pricing when the model has one (an operator's ModelRatio/ModelPrice wins);
 * otherwise the realtime defaults above for the known realtime models. Audio ratios come from the
 * defaults; models without defaults bill audio like text (both ratios 1).
 */
export function findRealtimePricing(options: OptionStore, model: string): RealtimePricing {
  const pricing = findModelPricing(options, model);
  const defaults = realtimeDefaults[model];
  const audio = { audioRatio: defaults?.audioRatio ?? 1, audioCompletionRatio: defaults?.audioCompletionRatio ?? 1 };
  if (pricing.isKnown || !defaults) return { ...pricing, ...audio };
  return {
    isKnown: true,
    quotaType: 0,
    modelRatio: defaults.modelRatio,
    completionRatio: defaults.completionRatio,
    cacheRatio: defaults.cacheRatio,
    modelPrice: -1,
    ...audio,
  };
}

/**
 * Realtime quota (docs/billing.md):
 *   round(groupRatio × modelRatio × (textIn − cachedText + (audioIn − cachedAudio) × audioRatio
 *         + cached × cacheRatio + textOut × completionRatio + audioOut × audioRatio × audioCompletionRatio)),
 *   at least 1 when the ratios are non-zero and tokens were used. A per-call ModelPrice bills the
 *   session as one call.
 */
export function computeRealtimeQuota(pricing: RealtimePricing, groupRatio: number, usage: RealtimeUsage, quotaPerUnit: number): number {
  if (pricing.quotaType === 1) return Math.round(pricing.modelPrice * quotaPerUnit * groupRatio);
  const cached = usage.cachedTextTokens + usage.cachedAudioTokens;
  const weighted =
    usage.textInputTokens -
    usage.cachedTextTokens +
    (usage.audioInputTokens - usage.cachedAudioTokens) * pricing.audioRatio +
    cached * pricing.cacheRatio +
    usage.textOutputTokens * pricing.completionRatio +
    usage.audioOutputTokens * pricing.audioRatio * pricing.audioCompletionRatio;
  if (weighted <= 0) return 0;
  const ratio = groupRatio * pricing.modelRatio;
  if (ratio === 0) return 0;
  return Math.max(1, Math.round(ratio * weighted));
}
