import { walletMessages, type TopUpAmountInput } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import { randomKey } from '../../lib/crypto.js';
import { invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import {
  requireStripe,
  stripeClient,
  stripeFailure,
  stripeSettingsOf,
  toMinorUnits,
  cardPaymentOffMessage,
  type StripeSettings,
} from '../payments/stripe.js';
import { moneyText } from './top-up-price.js';

/** amount (in $ of quota) × StripeUnitPrice × TopupGroupRatio[group] (a missing group counts 1). */
function cardPriceOf(ctx: AppContext, stripe: StripeSettings, amount: number, group: string): number {
  if (amount < stripe.minTopUp) throw invalidInput(walletMessages.amountBelowMinimum(stripe.minTopUp));
  const ratios = ctx.options.json<Record<string, unknown>>('TopupGroupRatio');
  const ratio = typeof ratios === 'object' && ratios !== null && typeof ratios[group] === 'number' ? ratios[group] : 1;
  return amount * stripe.unitPrice * ratio;
}

/** POST /api/user/stripe/amount: what `amount` $ of quota costs by card, e.g. '8.00'. */
export function quoteStripeTopUp(ctx: AppContext, user: AuthUser, input: TopUpAmountInput): string {
  const stripe = stripeSettingsOf(ctx.options);
  if (!stripe) throw invalidInput(cardPaymentOffMessage);
  return moneyText(cardPriceOf(ctx, stripe, input.amount, user.group));
}

/**
 * POST /api/user/stripe/pay: creates a Stripe Checkout Session (mode payment) for the amount and
 * records a pending top_ups row (payment_method 'stripe', gateway_ref = the session id). The buyer
 * pays on Stripe's page and comes back to {ServerAddress}/topup; the quota is credited by the
 * signed `checkout.session.completed` webhook, never by the return. Answers the page's URL.
 */
export async function createStripeTopUp(
  ctx: AppContext,
  user: AuthUser,
  input: TopUpAmountInput,
  log: { warn(object: object, message: string): void },
): Promise<{ pay_link: string }> {
  const stripe = requireStripe(ctx.options);
  const money = Number(moneyText(cardPriceOf(ctx, stripe, input.amount, user.group)));
  const unitAmount = toMinorUnits(money, stripe.currency);
  if (unitAmount < 1) throw invalidInput('充值金额过低');
  const tradeNo = `STRIPE${user.id}NO${randomKey(8)}${nowSeconds()}`;
  const email = await ctx.storage.db.selectFrom('users').select('email').where('id', '=', user.id).executeTakeFirst();
  let session;
  try {
    session = await stripeClient(ctx.config, stripe.secretKey).checkout.sessions.create({
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: { currency: stripe.currency, unit_amount: unitAmount, product_data: { name: `TUC${input.amount}` } },
        },
      ],
      client_reference_id: tradeNo,
      metadata: { trade_no: tradeNo, user_id: String(user.id), kind: 'top_up' },
      ...(email?.email ? { customer_email: email.email } : {}),
      ...(stripe.allowPromotionCodes ? { allow_promotion_codes: true } : {}),
      success_url: `${stripe.serverAddress}/topup?pay=success`,
      cancel_url: `${stripe.serverAddress}/topup?pay=cancel`,
    });
  } catch (error) {
    throw stripeFailure(error, log);
  }
  if (!session.url) throw stripeFailure(new Error('checkout session without url'), log);
  await ctx.storage.db
    .insertInto('top_ups')
    .values({
      user_id: user.id,
      amount: input.amount,
      money,
      trade_no: tradeNo,
      payment_method: 'stripe',
      create_time: nowSeconds(),
      status: 'pending',
      gateway_ref: session.id,
    })
    .execute();
  return { pay_link: session.url };
}
