import type { OptionStore } from '../../options/store.js';
import { defaultAudioRatio, defaultCacheCreationRatioFallback, defaultImageRatio } from '../../options/default-ratios.js';

/** How one model is billed, read from the pricing options (ModelPrice wins over ratios). */
export interface ModelPricing {
  /** false when the model has neither a price nor a ratio. */
  isKnown: boolean;
  /** 0 pay per token, 1 pay per call. */
  quotaType: 0 | 1;
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  /** Prompt-cache write price / prompt price (Claude cache_creation_input_tokens); absent = 1.25. */
  cacheCreationRatio?: number;
  /** US$ per call; -1 when billed by tokens. */
  modelPrice: number;
  /**
   * Audio input price / text input price, for Usage.audioInputTokens (transcriptions); absent = 1.
   * From defaultAudioRatio (no option yet).
   */
  audioRatio?: number;
  /** Image input price / text input price, for Usage.imageInputTokens (gpt-image-*); absent = 1. From defaultImageRatio. */
  imageRatio?: number;
}

type NumberMap = Record<string, number>;

/**
 * A price or ratio as PUT /api/option/ accepts it: a finite non-negative number. Anything else a
 * database may hold (a string, null, a negative number, from a migration or a hand edit) reads as
 * absent, so a malformed price never serves a model for free.
 */
const isRate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

const numberOr = (map: NumberMap, key: string, fallback: number): number => {
  const value = map[key];
  return isRate(value) ? value : fallback;
};

/**
 * The pricing of each model read so far, valid while the five pricing options keep the parsed values
 * they were read from (OptionStore.json returns the same object until an option's text changes).
 * Every relayed call reads its model's pricing; the objects are shared and never changed. Bounded:
 * model names come from clients.
 */
interface PricingMemo {
  prices: unknown;
  ratios: unknown;
  completion: unknown;
  cache: unknown;
  creation: unknown;
  byModel: Map<string, ModelPricing>;
}
const pricingMemo = new WeakMap<OptionStore, PricingMemo>();
const maxMemoModels = 2048;

export function findModelPricing(options: OptionStore, model: string): ModelPricing {
  const prices = options.json('ModelPrice');
  const ratios = options.json('ModelRatio');
  const completion = options.json('CompletionRatio');
  const cache = options.json('CacheRatio');
  const creation = options.json('CacheCreationRatio');
  let memo = pricingMemo.get(options);
  if (
    !memo ||
    memo.prices !== prices ||
    memo.ratios !== ratios ||
    memo.completion !== completion ||
    memo.cache !== cache ||
    memo.creation !== creation
  ) {
    memo = { prices, ratios, completion, cache, creation, byModel: new Map() };
    pricingMemo.set(options, memo);
  }
  let pricing = memo.byModel.get(model);
  if (pricing === undefined) {
    pricing = readModelPricing(options, model);
    if (memo.byModel.size >= maxMemoModels) memo.byModel.clear();
    memo.byModel.set(model, pricing);
  }
  return pricing;
}

function readModelPricing(options: OptionStore, model: string): ModelPricing {
  const prices = options.json<NumberMap>('ModelPrice');
  const ratios = options.json<NumberMap>('ModelRatio');
  const completion = numberOr(options.json<NumberMap>('CompletionRatio'), model, 1);
  const cache = numberOr(options.json<NumberMap>('CacheRatio'), model, 1);
  const creation = numberOr(options.json<NumberMap>('CacheCreationRatio'), model, defaultCacheCreationRatioFallback);
  if (Object.hasOwn(prices, model) && isRate(prices[model])) {
    return {
      isKnown: true,
      quotaType: 1,
      modelRatio: 0,
      completionRatio: completion,
      cacheRatio: cache,
      cacheCreationRatio: creation,
      modelPrice: prices[model],
    };
  }
  if (Object.hasOwn(ratios, model) && isRate(ratios[model])) {
    const pricing: ModelPricing = {
      isKnown: true,
      quotaType: 0,
      modelRatio: ratios[model],
      completionRatio: completion,
      cacheRatio: cache,
      cacheCreationRatio: creation,
      modelPrice: -1,
    };
    if (Object.hasOwn(defaultAudioRatio, model)) pricing.audioRatio = defaultAudioRatio[model];
    if (Object.hasOwn(defaultImageRatio, model)) pricing.imageRatio = defaultImageRatio[model];
    return pricing;
  }
  return {
    isKnown: false,
    quotaType: 0,
    modelRatio: 0,
    completionRatio: 1,
    cacheRatio: 1,
    cacheCreationRatio: defaultCacheCreationRatioFallback,
    modelPrice: -1,
  };
}

/**
 * How a model with neither price nor ratio is billed where it may be used (SelfUseModeEnabled, or a
 * user who accepts unset models): per token at UnsetModelRatio (new-api's default ratio, 37.5), so
 * its usage still shows in the logs and the dashboard. It stays unknown (not a metrics label).
 */
export function unsetModelPricing<Pricing extends ModelPricing>(options: OptionStore, pricing: Pricing): Pricing {
  if (pricing.isKnown) return pricing;
  return { ...pricing, quotaType: 0, modelRatio: options.number('UnsetModelRatio'), modelPrice: -1 };
}

export function findGroupRatio(options: OptionStore, group: string): number {
  return numberOr(options.json<NumberMap>('GroupRatio'), group, 1);
}

/** The ratio a call is billed at for its group, and the user group's special ratio when one applies. */
export interface GroupRatioInfo {
  /** The ratio billed: the special ratio when there is one, else GroupRatio's. */
  groupRatio: number;
  /** GroupGroupRatio[userGroup][usingGroup], or -1 when none is set (the log's user_group_ratio). */
  userGroupRatio: number;
}

/** GroupGroupRatio[userGroup][usingGroup] when set (a finite number >= 0), else null. */
export function findUserGroupRatio(options: OptionStore, userGroup: string, usingGroup: string): number | null {
  const byUserGroup = options.json<Record<string, unknown>>('GroupGroupRatio');
  const ratios = Object.hasOwn(byUserGroup, userGroup) ? byUserGroup[userGroup] : undefined;
  if (!ratios || typeof ratios !== 'object' || !Object.hasOwn(ratios, usingGroup)) return null;
  const ratio = (ratios as Record<string, unknown>)[usingGroup];
  return typeof ratio === 'number' && Number.isFinite(ratio) && ratio >= 0 ? ratio : null;
}

/**
 * new-api's group ratio: a user group's special ratio for the group the call uses (GroupGroupRatio)
 * replaces that group's GroupRatio.
 */
export function findGroupRatioInfo(options: OptionStore, userGroup: string, usingGroup: string): GroupRatioInfo {
  const special = findUserGroupRatio(options, userGroup, usingGroup);
  return special === null
    ? { groupRatio: findGroupRatio(options, usingGroup), userGroupRatio: -1 }
    : { groupRatio: special, userGroupRatio: special };
}
