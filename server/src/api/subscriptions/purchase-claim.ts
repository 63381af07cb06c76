import { subscriptionMessages } from '@modelgate/shared';
import type Stripe from 'stripe';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { AppError } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../users/user-views.js';

/** A claim whose request died before its checkout existed is taken over after this long (s). */
const staleClaimSeconds = 120;

export interface NewOrder {
  userId: number;
  planId: number;
  money: number;
  currency: string;
  tradeNo: string;
}

/**
 * The one pending subscription purchase of a user (migration 0011): inserts the pending order
 * before its checkout is created, `pending_user_id` unique. A concurrent request of the same user
 * meets the unique index and is refused (409): two simultaneous subscribe requests cannot both open a
 * payable checkout. An earlier pending order whose checkout is open is replaced: its Stripe session
 * is expired first (then it can never be paid), and a session found already paid refuses the new
 * purchase. Answers the new order's id.
 */
export async function claimPurchase(ctx: AppContext, stripe: Stripe, order: NewOrder): Promise<number> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      return await insertPending(ctx, order);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    await replaceEarlierClaim(ctx, stripe, order.userId);
  }
  throw new AppError('conflict', subscriptionMessages.purchaseInProgress);
}

function insertPending(ctx: AppContext, order: NewOrder): Promise<number> {
  return insertReturningId(ctx.storage, 'subscription_orders', {
    user_id: order.userId,
    plan_id: order.planId,
    money: order.money,
    currency: order.currency,
    trade_no: order.tradeNo,
    gateway: 'stripe',
    gateway_ref: '',
    status: 'pending',
    create_time: nowSeconds(),
    pending_user_id: order.userId,
  });
}

async function replaceEarlierClaim(ctx: AppContext, stripe: Stripe, userId: number): Promise<void> {
  const { db } = ctx.storage;
  const earlier = await db
    .selectFrom('subscription_orders')
    .select(['id', 'gateway_ref', 'create_time'])
    .where('pending_user_id', '=', userId)
    .executeTakeFirst();
  // Completed or expired meanwhile: the insert is tried again.
  if (!earlier) return;
  if (earlier.gateway_ref === '') {
    // Another request of this user is creating its checkout right now.
    if (nowSeconds() - Number(earlier.create_time) < staleClaimSeconds)
      throw new AppError('conflict', subscriptionMessages.purchaseInProgress);
  } else {
    await expireCheckout(stripe, earlier.gateway_ref);
  }
  const result = await db
    .updateTable('subscription_orders')
    .set({ status: 'expired', complete_time: nowSeconds(), pending_user_id: null })
    .where('id', '=', earlier.id)
    .where('status', '=', 'pending')
    .where('pending_user_id', '=', userId)
    .executeTakeFirst();
  // Another request replaced it first: that one goes on, this one is refused.
  if (Number(result.numUpdatedRows) !== 1) throw new AppError('conflict', subscriptionMessages.purchaseInProgress);
}

/** Expires an open checkout at Stripe; one already paid refuses the new purchase (its webhook is on its way). */
async function expireCheckout(stripe: Stripe, sessionId: string): Promise<void> {
  try {
    await stripe.checkout.sessions.expire(sessionId);
    return;
  } catch (error) {
    // Only an open session can be expired: see what became of it.
    const session = await stripe.checkout.sessions.retrieve(sessionId).catch(() => {
      throw error;
    });
    if (session.status === 'complete') throw new AppError('conflict', subscriptionMessages.purchasePaid);
    if (session.status !== 'expired') throw error;
  }
}

/** The claim of an order whose checkout could not be created is given up. */
export async function dropClaim(ctx: AppContext, orderId: number): Promise<void> {
  await ctx.storage.db
    .updateTable('subscription_orders')
    .set({ status: 'expired', complete_time: nowSeconds(), pending_user_id: null })
    .where('id', '=', orderId)
    .where('status', '=', 'pending')
    .execute();
}
