import { nowSeconds } from '../../db/index.js';
import { invalidInput, notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { creditTopUp } from './credit-top-up.js';

/** The fields of a Checkout Session event this needs; the event itself is signed and verified. */
export interface CheckoutSessionFields {
  id: string;
  client_reference_id?: string | null;
  payment_status?: string | null;
}

export const unknownSessionMessage = '未知的 Stripe 支付会话';
export const mismatchedSessionMessage = 'Stripe 支付会话与订单不符';

async function findCardOrder(ctx: AppContext, session: CheckoutSessionFields) {
  const order = await ctx.storage.db
    .selectFrom('top_ups')
    .select(['id', 'user_id', 'amount', 'money', 'trade_no', 'status'])
    .where('gateway_ref', '=', session.id)
    .where('payment_method', '=', 'stripe')
    .executeTakeFirst();
  if (!order) throw notFound(unknownSessionMessage);
  if (session.client_reference_id !== order.trade_no) throw invalidInput(mismatchedSessionMessage);
  return order;
}

/**
 * `checkout.session.completed` / `async_payment_succeeded` of a card top-up: credits the order once
 * (creditTopUp's conditional status change) when Stripe says it is paid. A session this gateway did
 * not create is a 404, so a forged or foreign event credits nothing.
 */
export async function completeStripeTopUp(ctx: AppContext, session: CheckoutSessionFields): Promise<boolean> {
  const order = await findCardOrder(ctx, session);
  if (session.payment_status !== 'paid') return false;
  return creditTopUp(ctx, order);
}

/** `checkout.session.expired` / `async_payment_failed`: a pending card top-up becomes expired. */
export async function expireStripeTopUp(ctx: AppContext, session: CheckoutSessionFields): Promise<void> {
  const order = await findCardOrder(ctx, session);
  await ctx.storage.db
    .updateTable('top_ups')
    .set({ status: 'expired', complete_time: nowSeconds() })
    .where('id', '=', order.id)
    .where('status', '=', 'pending')
    .execute();
}
