import { defaultQuotaPerUnit } from '@modelgate/shared';
import type { PlatformStatus } from './status';

/** Quota shown as currency when display_in_currency is on, else as a raw number. */
export function renderQuota(quota: number, status: PlatformStatus | null, digits = 2): string {
  const perUnit = status?.quota_per_unit || defaultQuotaPerUnit;
  if (status?.display_in_currency ?? true) return `$${(quota / perUnit).toFixed(digits)}`;
  return String(quota);
}

export const quotaPerUnitOf = (status: PlatformStatus | null): number => status?.quota_per_unit || defaultQuotaPerUnit;
