import type { PricingAnswer, PricingEntry } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';
import { pricingKeys } from './keys';

/** A model's price as the page shows it (quota_type 0 per token, 1 per call; null ratio and price when unpriced). */
export type PricingModel = PricingEntry;

/** The page's data: the models, and the viewer's group ratios and usable groups. */
export interface PricingData {
  models: PricingModel[];
  groupRatio: Record<string, number>;
  usableGroup: Record<string, string>;
  /** The viewer's special ratios (GroupGroupRatio), already in groupRatio. */
  specialGroupRatio: Record<string, number>;
  /** The order an `auto` token tries the viewer's groups in (empty: auto not usable). */
  autoGroups: string[];
}

/** GET /api/pricing: models in data; group_ratio, usable_group, special_group_ratio and auto_groups beside it. */
export async function fetchPricing(): Promise<PricingData> {
  const envelope = await requestEnvelope<PricingAnswer['data'], Omit<PricingAnswer, 'data'>>('/api/pricing');
  return {
    models: envelope.data ?? [],
    groupRatio: envelope.group_ratio ?? {},
    usableGroup: envelope.usable_group ?? {},
    specialGroupRatio: envelope.special_group_ratio ?? {},
    autoGroups: envelope.auto_groups ?? [],
  };
}

export const usePricing = () => useQuery({ queryKey: pricingKeys.all, queryFn: fetchPricing });
