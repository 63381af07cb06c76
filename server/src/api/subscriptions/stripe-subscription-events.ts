import { nowSeconds } from '../../db/index.js';
import type { AppContext } from '../../context.js';
import { startStripePeriod } from '../../subscriptions/renew-periods.js';
import { invoiceFacts, subscriptionFacts } from './stripe-objects.js';

/** Stripe statuses after which a subscription is not renewed any more. */
const endedStatuses = new Set(['canceled', 'unpaid', 'incomplete_expired']);

/**
 * `invoice.paid`: a renewal (or the first invoice) paid for the period on its line; that period
 * starts with a full allowance, once (startStripePeriod). An invoice of a subscription not known
 * here yet (its checkout completion is still on its way) changes nothing: the completion reads the
 * period from Stripe itself.
 */
export async function renewStripeSubscription(ctx: AppContext, invoice: unknown): Promise<boolean> {
  const facts = invoiceFacts(invoice);
  if (!facts || facts.periodEnd <= facts.periodStart) return false;
  return startStripePeriod(ctx.storage.db, facts.subscriptionId, facts.periodStart, facts.periodEnd, nowSeconds());
}

/**
 * `customer.subscription.updated` / `deleted`: a subscription set to cancel at its period's end,
 * cancelled, or lapsed (unpaid) stops renewing and keeps funding to the end of the period it is in
 * (`ends_at` = that end; the period job expires it then); one resumed before that renews again.
 */
export async function syncStripeSubscription(ctx: AppContext, object: unknown, isDeleted: boolean): Promise<void> {
  const facts = subscriptionFacts(object);
  if (!facts) return;
  const { db } = ctx.storage;
  const row = await db
    .selectFrom('user_subscriptions')
    .select(['id', 'period_end', 'ends_at', 'cancelled_at'])
    .where('stripe_subscription_id', '=', facts.id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (!row) return;
  const now = nowSeconds();
  const isEnding = isDeleted || endedStatuses.has(facts.status) || facts.cancelAtPeriodEnd;
  const endsAt = isEnding ? Number(row.period_end) : 0;
  if (endsAt === Number(row.ends_at)) return;
  await db
    .updateTable('user_subscriptions')
    .set({ ends_at: endsAt, cancelled_at: isEnding ? Number(row.cancelled_at) || now : 0, updated_time: now })
    .where('id', '=', row.id)
    .where('status', '=', 'active')
    .execute();
}
