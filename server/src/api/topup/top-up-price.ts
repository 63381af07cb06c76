import { walletMessages } from '@modelgate/shared';
import { invalidInput } from '../../lib/errors.js';
import type { OptionStore } from '../../options/store.js';

/** amount (in $) must reach MinTopUp. */
export function assertMinTopUp(options: OptionStore, amount: number): void {
  const minimum = options.number('MinTopUp');
  if (amount < minimum) throw invalidInput(walletMessages.amountBelowMinimum(minimum));
}

/** The money to pay for `amount` $: amount × Price × TopupGroupRatio[group] (a missing group counts 1). */
export function topUpPriceOf(options: OptionStore, amount: number, group: string): number {
  const ratios = options.json<Record<string, unknown>>('TopupGroupRatio');
  const ratio = typeof ratios === 'object' && ratios !== null && typeof ratios[group] === 'number' ? ratios[group] : 1;
  return amount * options.number('Price') * ratio;
}

/** Money as the gateway and the console show it: two decimals. */
export const moneyText = (money: number): string => money.toFixed(2);
