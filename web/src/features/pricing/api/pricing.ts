import { useQuery } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';

/** A pricing entry (spec 02 §3): quota_type 0 per token, 1 per call. */
export interface PricingModel {
  model_name: string;
  quota_type: number;
  model_ratio: number;
  completion_ratio: number;
  model_price: number;
  enable_groups: string[];
}

export interface PricingData {
  models: PricingModel[];
  groupRatio: Record<string, number>;
  usableGroup: Record<string, string>;
}

/** GET /api/pricing: models in data, group_ratio and usable_group beside it. */
export async function fetchPricing(): Promise<PricingData> {
  const envelope = await requestEnvelope<PricingModel[], { group_ratio: Record<string, number>; usable_group: Record<string, string> }>('/api/pricing');
  return { models: envelope.data ?? [], groupRatio: envelope.group_ratio ?? {}, usableGroup: envelope.usable_group ?? {} };
}

export const pricingQueryKey = ['pricing'] as const;

export const usePricing = () => useQuery({ queryKey: pricingQueryKey, queryFn: fetchPricing });
