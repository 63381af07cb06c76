import { LogType, subscriptionMessages } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import { invalidInput, notFound } from '../../lib/errors.js';
import { planTerms } from './plans.js';
import type { AppContext } from '../../context.js';
import { stripeClient, stripeFailure, stripeSettingsOf } from '../payments/stripe.js';
import { mismatchedSessionMessage, unknownSessionMessage, type CheckoutSessionFields } from '../topup/complete-stripe-top-up.js';
import { moneyText } from '../topup/top-up-price.js';
import { subscriptionFacts } from './stripe-objects.js';

type Log = { warn(object: object, message: string): void };

async function findOrder(ctx: AppContext, session: CheckoutSessionFields) {
  const order = await ctx.storage.db
    .selectFrom('subscription_orders')
    .selectAll()
    .where('gateway_ref', '=', session.id)
    .where('gateway', '=', 'stripe')
    .executeTakeFirst();
  if (!order) throw notFound(unknownSessionMessage);
  if (session.client_reference_id !== order.trade_no) throw invalidInput(mismatchedSessionMessage);
  return order;
}

/**
 * `checkout.session.completed` of a subscription purchase: reads the new Stripe subscription's
 * current period from Stripe (the event does not carry it), then in one transaction moves the order
 * from pending to success and starts the user's subscription with the plan's terms and a full
 * allowance. The conditional status change (and the unique Stripe subscription id) make repeated and
 * concurrent deliveries start it once. Stripe unreachable is a 503, so Stripe delivers again later.
 */
export async function completeSubscriptionCheckout(
  ctx: AppContext,
  session: CheckoutSessionFields & { subscription?: unknown },
  log: Log,
): Promise<boolean> {
  const order = await findOrder(ctx, session);
  if (order.status !== 'pending') return false;
  if (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') return false;
  const subscriptionId =
    typeof session.subscription === 'string' ? session.subscription : (session.subscription as { id?: unknown } | null)?.id;
  if (typeof subscriptionId !== 'string' || subscriptionId === '') throw invalidInput('Stripe 支付会话缺少订阅');
  const settings = stripeSettingsOf(ctx.options);
  if (!settings) return false;
  let facts;
  try {
    facts = subscriptionFacts(await stripeClient(ctx.config, settings.secretKey).subscriptions.retrieve(subscriptionId));
  } catch (error) {
    throw stripeFailure(error, log);
  }
  if (!facts || facts.periodEnd <= facts.periodStart) throw invalidInput('Stripe 订阅缺少计费周期');
  const plan = await ctx.storage.db.selectFrom('subscription_plans').selectAll().where('id', '=', order.plan_id).executeTakeFirst();
  if (!plan) throw notFound(subscriptionMessages.planNotFound);
  const now = nowSeconds();
  const isStarted = await ctx.storage.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('subscription_orders')
      .set({ status: 'success', complete_time: now, pending_user_id: null })
      .where('id', '=', order.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await trx
      .insertInto('user_subscriptions')
      .values({
        user_id: order.user_id,
        ...planTerms(plan),
        source: 'stripe',
        status: 'active',
        period_start: facts.periodStart,
        period_end: facts.periodEnd,
        ends_at: facts.cancelAtPeriodEnd ? facts.periodEnd : 0,
        cancelled_at: facts.cancelAtPeriodEnd ? now : 0,
        stripe_subscription_id: subscriptionId,
        created_time: now,
        updated_time: now,
      })
      .execute();
    const user = await trx.selectFrom('users').select('username').where('id', '=', order.user_id).executeTakeFirst();
    await trx
      .insertInto('logs')
      .values({
        user_id: order.user_id,
        username: user?.username ?? '',
        created_at: now,
        type: LogType.system,
        content: `订阅 ${plan.name} 购买成功，支付金额：${moneyText(Number(order.money))} ${order.currency.toUpperCase()}，订单号 ${order.trade_no}`,
      })
      .execute();
    return true;
  });
  // Every instance re-reads the user: their calls are funded from now on (relay/ledger/funding-state.ts).
  if (isStarted) await ctx.bus.publish('users', String(order.user_id));
  return isStarted;
}

/** `checkout.session.expired` / `async_payment_failed` of a subscription purchase: pending → expired. */
export async function expireSubscriptionOrder(ctx: AppContext, session: CheckoutSessionFields): Promise<void> {
  const order = await findOrder(ctx, session);
  await ctx.storage.db
    .updateTable('subscription_orders')
    .set({ status: 'expired', complete_time: nowSeconds(), pending_user_id: null })
    .where('id', '=', order.id)
    .where('status', '=', 'pending')
    .execute();
}
