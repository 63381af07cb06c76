import { subscriptionMessages } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import { randomKey } from '../../lib/crypto.js';
import { AppError, invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { requireStripe, stripeClient, stripeFailure, toMinorUnits } from '../payments/stripe.js';
import { moneyText } from '../topup/top-up-price.js';
import { findPlan } from './plans.js';
import { claimPurchase, dropClaim } from './purchase-claim.js';

type Log = { warn(object: object, message: string): void };

/**
 * POST /api/subscription/stripe/pay: a Stripe Checkout Session in subscription mode for an enabled
 * plan with a price: a recurring price of the plan's period, in StripeCurrency. A pending
 * subscription_orders row records it; the subscription starts with the signed
 * `checkout.session.completed` webhook. A user whose subscription renews is refused until it is
 * cancelled (one renewing subscription at a time), and a user has one pending purchase at a time
 * (purchase-claim.ts), so simultaneous requests cannot both be paid.
 */
export async function subscribePlan(ctx: AppContext, user: AuthUser, planId: number, log: Log): Promise<{ pay_link: string }> {
  const stripe = requireStripe(ctx.options);
  const plan = await findPlan(ctx, planId);
  if (plan.enabled !== 1) throw invalidInput(subscriptionMessages.planDisabled);
  const money = Number(moneyText(Number(plan.price)));
  const unitAmount = toMinorUnits(money, stripe.currency);
  if (unitAmount < 1) throw invalidInput(subscriptionMessages.planNotForSale);
  const renewing = await ctx.storage.db
    .selectFrom('user_subscriptions')
    .select('id')
    .where('user_id', '=', user.id)
    .where('status', '=', 'active')
    .where('ends_at', '=', 0)
    .executeTakeFirst();
  if (renewing) throw new AppError('conflict', subscriptionMessages.alreadySubscribed);
  const tradeNo = `SUB${user.id}NO${randomKey(8)}${nowSeconds()}`;
  const email = await ctx.storage.db.selectFrom('users').select('email').where('id', '=', user.id).executeTakeFirst();
  const client = stripeClient(ctx.config, stripe.secretKey);
  // One pending purchase per user: a concurrent request is refused, an earlier open checkout expired.
  let orderId: number;
  try {
    orderId = await claimPurchase(ctx, client, { userId: user.id, planId: plan.id, money, currency: stripe.currency, tradeNo });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw stripeFailure(error, log);
  }
  let session;
  try {
    session = await client.checkout.sessions.create({
      mode: 'subscription',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: stripe.currency,
            unit_amount: unitAmount,
            recurring: { interval: plan.period_unit as 'day' | 'week' | 'month' | 'year', interval_count: plan.period_count },
            product_data: { name: plan.name },
          },
        },
      ],
      client_reference_id: tradeNo,
      metadata: { trade_no: tradeNo, user_id: String(user.id), plan_id: String(plan.id), kind: 'subscription' },
      subscription_data: { metadata: { trade_no: tradeNo, user_id: String(user.id), plan_id: String(plan.id) } },
      ...(email?.email ? { customer_email: email.email } : {}),
      ...(stripe.allowPromotionCodes ? { allow_promotion_codes: true } : {}),
      success_url: `${stripe.serverAddress}/subscription?pay=success`,
      cancel_url: `${stripe.serverAddress}/subscription?pay=cancel`,
    });
  } catch (error) {
    await dropClaim(ctx, orderId);
    throw stripeFailure(error, log);
  }
  if (!session.url) {
    await dropClaim(ctx, orderId);
    throw stripeFailure(new Error('checkout session without url'), log);
  }
  await ctx.storage.db.updateTable('subscription_orders').set({ gateway_ref: session.id }).where('id', '=', orderId).execute();
  return { pay_link: session.url };
}
