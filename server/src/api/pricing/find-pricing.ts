import type { AppContext } from '../../context.js';
import { findModelPricing } from '../../relay/billing/pricing.js';

export interface PricingEntry {
  model_name: string;
  quota_type: 0 | 1;
  model_ratio: number;
  completion_ratio: number;
  model_price: number;
  enable_groups: string[];
}

/** Every model some enabled channel serves, with its price and the groups that can use it. */
export function findPricing(ctx: AppContext) {
  const channels = ctx.relay!.channels;
  const data: PricingEntry[] = channels.allModels().map((model) => {
    const pricing = findModelPricing(ctx.options, model);
    return {
      model_name: model,
      quota_type: pricing.quotaType,
      model_ratio: pricing.modelRatio,
      completion_ratio: pricing.completionRatio,
      model_price: pricing.modelPrice < 0 ? 0 : pricing.modelPrice,
      enable_groups: channels.groupsOf(model).sort(),
    };
  });
  return {
    data,
    group_ratio: ctx.options.json<Record<string, number>>('GroupRatio'),
    usable_group: ctx.options.json<Record<string, string>>('UserUsableGroups'),
  };
}
