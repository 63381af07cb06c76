import type { OptionStore } from '../../options/store.js';

/** Quota as the console shows it: dollars when DisplayInCurrencyEnabled, else points. */
export function formatQuota(options: OptionStore, quota: number): string {
  if (!options.bool('DisplayInCurrencyEnabled')) return `${quota} 点额度`;
  return `＄${(quota / options.number('QuotaPerUnit')).toFixed(6)} 额度`;
}
