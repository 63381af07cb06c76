import { useQuery } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';

/**
 * A pricing entry (spec 02 §3): quota_type 0 per token, 1 per call. An unpriced model
 * (is_priced false) has null ratio and price; is_available is judged by the server for the viewer.
 */
export interface PricingModel {
  model_name: string;
  quota_type: number;
  model_ratio: number | null;
  completion_ratio: number | null;
  model_price: number | null;
  enable_groups: string[];
  is_priced: boolean;
  is_available: boolean;
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
