import { walletMessages, type TopUpAmountInput } from '@modelgate/shared';
import { invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { epaySettingsOf } from './epay.js';
import { assertMinTopUp, moneyText, topUpPriceOf } from './top-up-price.js';

/** POST /api/user/amount: what `amount` $ of quota costs the caller, e.g. '7.30'. */
export function quoteTopUp(ctx: AppContext, user: AuthUser, input: TopUpAmountInput): string {
  if (!epaySettingsOf(ctx.options)) throw invalidInput(walletMessages.onlineTopUpOff);
  assertMinTopUp(ctx.options, input.amount);
  return moneyText(topUpPriceOf(ctx.options, input.amount, user.group));
}
