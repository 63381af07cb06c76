import type { PricingModel } from '../api/get-pricing';

/** Sort order: per-call first, then names starting with gpt, then alphabetical. */
export function comparePricing(a: PricingModel, b: PricingModel): number {
  if (a.quota_type !== b.quota_type) return b.quota_type - a.quota_type;
  const aGpt = a.model_name.startsWith('gpt');
  const bGpt = b.model_name.startsWith('gpt');
  if (aGpt !== bGpt) return aGpt ? -1 : 1;
  return a.model_name.localeCompare(b.model_name);
}

/** Case-insensitive fuzzy match: every character of the query appears in order. */
export function matchesModel(name: string, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  const hay = name.toLowerCase();
  if (hay.includes(needle)) return true;
  let at = 0;
  for (const char of needle) {
    at = hay.indexOf(char, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}

const round = (value: number) => Number(value.toFixed(6));

/** Per 1M tokens in USD: prompt = ratio × 2 × group; completion = ratio × completion ratio × 2 × group. Only for priced models. */
export function tokenPrices(model: PricingModel, groupRatio: number) {
  const ratio = model.model_ratio ?? 0;
  return {
    prompt: round(ratio * 2 * groupRatio),
    completion: round(ratio * (model.completion_ratio ?? 1) * 2 * groupRatio),
  };
}

/** Per call in USD: model price × group ratio. Only for priced models. */
export const callPrice = (model: PricingModel, groupRatio: number) => round((model.model_price ?? 0) * groupRatio);

/**
 * Whether the model can be called: the server's answer for the viewer, or for a group the viewer
 * picked to look at, priced and served in that group.
 */
export const isAvailableIn = (model: PricingModel, pickedGroup: string | null): boolean =>
  pickedGroup === null ? model.is_available : model.is_priced && model.enable_groups.includes(pickedGroup);

export const formatUsd = (value: number) => `$${value}`;
