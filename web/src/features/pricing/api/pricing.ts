import { useQuery } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';

/**
 * A pricing entry: quota_type 0 per token, 1 per call. An unpriced model
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
  /** The viewer's special ratios (GroupGroupRatio), already in groupRatio. */
  specialGroupRatio: Record<string, number>;
  /** The order an `auto` token tries the viewer's groups in (empty: auto not usable). */
  autoGroups: string[];
}

interface PricingExtras {
  group_ratio: Record<string, number>;
  usable_group: Record<string, string>;
  special_group_ratio?: Record<string, number>;
  auto_groups?: string[];
}

/** GET /api/pricing: models in data; group_ratio, usable_group, special_group_ratio and auto_groups beside it. */
export async function fetchPricing(): Promise<PricingData> {
  const envelope = await requestEnvelope<PricingModel[], PricingExtras>('/api/pricing');
  return {
    models: envelope.data ?? [],
    groupRatio: envelope.group_ratio ?? {},
    usableGroup: envelope.usable_group ?? {},
    specialGroupRatio: envelope.special_group_ratio ?? {},
    autoGroups: envelope.auto_groups ?? [],
  };
}

export const pricingQueryKey = ['pricing'] as const;

export const usePricing = () => useQuery({ queryKey: pricingQueryKey, queryFn: fetchPricing });
