import { subscriptionMessages, type FundingPreference, type GrantPlanInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { invalidInput, notFound } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import { parseUserSetting } from '../users/update-user-setting.js';
import { assertCanEdit } from '../users/user-permissions.js';
import type { AppContext } from '../../context.js';
import { fundingPreferenceOf } from '../../subscriptions/funding.js';
import { addPeriod, isPeriodUnit } from '../../subscriptions/periods.js';
import { stripeClient, stripeFailure, stripeSettingsOf, cardPaymentOffMessage } from '../payments/stripe.js';
import { findPlan, planTerms } from './plans.js';
import { subscriptionView } from './views.js';

type Log = { warn(object: object, message: string): void };

/** The subscriptions shown: every active one, then the ten most recent that ended. */
async function subscriptionsOf(ctx: AppContext, userId: number) {
  const now = nowSeconds();
  const { db } = ctx.storage;
  const active = await db
    .selectFrom('user_subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .orderBy('period_end')
    .orderBy('id')
    .execute();
  const ended = await db
    .selectFrom('user_subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', '<>', 'active')
    .orderBy('id', 'desc')
    .limit(10)
    .execute();
  return [...active, ...ended].map((row) => subscriptionView(row, now));
}

/** GET /api/subscription/self: the caller's subscriptions and funding preference. */
export async function findOwnSubscriptions(ctx: AppContext, user: AuthUser) {
  const row = await ctx.storage.db.selectFrom('users').select('setting').where('id', '=', user.id).executeTakeFirst();
  return { billing_preference: fundingPreferenceOf(row?.setting ?? ''), subscriptions: await subscriptionsOf(ctx, user.id) };
}

/** GET /api/subscription/admin/user/:id: a user's subscriptions, for the admin's user editor. */
export async function findUserSubscriptions(ctx: AppContext, userId: number) {
  const user = await ctx.storage.db
    .selectFrom('users')
    .select('setting')
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!user) throw notFound(subscriptionMessages.userNotFound);
  return { billing_preference: fundingPreferenceOf(user.setting), subscriptions: await subscriptionsOf(ctx, userId) };
}

/** PUT /api/subscription/self/preference: kept in users.setting as `billing_preference`. */
export async function setFundingPreference(ctx: AppContext, user: AuthUser, preference: FundingPreference): Promise<void> {
  const { db } = ctx.storage;
  const row = await db.selectFrom('users').select('setting').where('id', '=', user.id).executeTakeFirstOrThrow();
  const setting = { ...parseUserSetting(row.setting), billing_preference: preference };
  await db
    .updateTable('users')
    .set({ setting: JSON.stringify(setting) })
    .where('id', '=', user.id)
    .execute();
  await ctx.bus.publish('users', String(user.id));
}

/**
 * POST /api/subscription/self/cancel: stops the caller's renewing Stripe subscription at the end of
 * its period (Stripe's cancel_at_period_end); it funds calls until then. Someone else's
 * subscription is a 404.
 */
export async function cancelOwnSubscription(ctx: AppContext, user: AuthUser, id: number, log: Log): Promise<void> {
  const { db } = ctx.storage;
  const row = await db.selectFrom('user_subscriptions').selectAll().where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
  if (!row) throw notFound(subscriptionMessages.subscriptionNotFound);
  if (row.status !== 'active' || Number(row.ends_at) !== 0 || !row.stripe_subscription_id)
    throw invalidInput(subscriptionMessages.notRenewing);
  const settings = stripeSettingsOf(ctx.options);
  if (!settings) throw invalidInput(cardPaymentOffMessage);
  try {
    await stripeClient(ctx.config, settings.secretKey).subscriptions.update(row.stripe_subscription_id, { cancel_at_period_end: true });
  } catch (error) {
    throw stripeFailure(error, log);
  }
  const now = nowSeconds();
  await db
    .updateTable('user_subscriptions')
    .set({ ends_at: row.period_end, cancelled_at: now, updated_time: now })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where('ends_at', '=', 0)
    .execute();
}

/**
 * POST /api/subscription/admin/grant: gives a user a plan for `periods` periods from now, unpaid and
 * not renewing; the period job resets its allowance at each period's start and ends it after the last.
 */
export async function grantPlan(ctx: AppContext, me: AuthUser, input: GrantPlanInput) {
  const plan = await findPlan(ctx, input.plan_id);
  const user = await ctx.storage.db
    .selectFrom('users')
    .select(['id', 'role', 'deleted_at'])
    .where('id', '=', input.user_id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!user) throw notFound(subscriptionMessages.userNotFound);
  // As in the user editor: admins act on users of a lower role (the root also on themselves).
  assertCanEdit(me, user);
  if (!isPeriodUnit(plan.period_unit)) throw invalidInput(subscriptionMessages.periodUnitInvalid);
  const now = nowSeconds();
  let endsAt = now;
  for (let i = 0; i < input.periods; i += 1) endsAt = addPeriod(endsAt, plan.period_unit, plan.period_count);
  const id = await insertReturningId(ctx.storage, 'user_subscriptions', {
    user_id: input.user_id,
    ...planTerms(plan),
    source: 'admin',
    status: 'active',
    period_start: now,
    period_end: addPeriod(now, plan.period_unit, plan.period_count),
    ends_at: endsAt,
    created_time: now,
    updated_time: now,
  });
  const row = await ctx.storage.db.selectFrom('user_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  // Every instance re-reads the user: their calls are funded from now on (relay/ledger/funding-state.ts).
  await ctx.bus.publish('users', String(input.user_id));
  return subscriptionView(row, now);
}

/**
 * POST /api/subscription/admin/revoke: ends a subscription now (it stops funding at once); a renewing
 * Stripe subscription is cancelled at Stripe first, so the buyer is not charged again.
 */
export async function revokeSubscription(ctx: AppContext, me: AuthUser, id: number, log: Log): Promise<void> {
  const { db } = ctx.storage;
  const row = await db.selectFrom('user_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(subscriptionMessages.subscriptionNotFound);
  const owner = await db.selectFrom('users').select(['id', 'role']).where('id', '=', row.user_id).executeTakeFirst();
  if (owner) assertCanEdit(me, { ...owner, deleted_at: null });
  if (row.status !== 'active') return;
  if (row.stripe_subscription_id && Number(row.ends_at) === 0) {
    const settings = stripeSettingsOf(ctx.options);
    if (!settings) throw invalidInput(cardPaymentOffMessage);
    try {
      await stripeClient(ctx.config, settings.secretKey).subscriptions.cancel(row.stripe_subscription_id);
    } catch (error) {
      throw stripeFailure(error, log);
    }
  }
  const now = nowSeconds();
  await db
    .updateTable('user_subscriptions')
    .set({ status: 'expired', ends_at: now, cancelled_at: Number(row.cancelled_at) || now, updated_time: now })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .execute();
  await ctx.bus.publish('users', String(row.user_id));
}
