import type { Db } from '../db/index.js';
import { addPeriod, isPeriodUnit } from './periods.js';

/**
 * Period changes of user_subscriptions, written as conditional UPDATEs on the period being left, so
 * running one twice, or on two instances at once, changes a subscription once.
 */

export interface PeriodRun {
  /** Subscriptions moved into their next period with a full allowance. */
  renewed: number;
  /** Subscriptions whose last period ended: they stop funding. */
  expired: number;
  /** The users of the expired ones (their cached funding state is re-read: relay/ledger/funding-state.ts). */
  expiredUsers: number[];
}

const batchSize = 500;

/**
 * Every active subscription whose period is over at `now`:
 * - with a planned end after it (an admin grant of several periods): the next period starts where
 *   the last ended (periods missed while no instance ran are skipped over), its allowance reset;
 * - with its planned end reached (the last granted period, a cancelled or lapsed subscription):
 *   expired;
 * - renewing through its gateway (`ends_at` 0, a Stripe subscription): left alone; Stripe's
 *   `invoice.paid` starts its next period (startStripePeriod), and its cancellation sets `ends_at`.
 */
export async function renewDuePeriods(db: Db, now: number): Promise<PeriodRun> {
  const run: PeriodRun = { renewed: 0, expired: 0, expiredUsers: [] };
  let afterId = 0;
  for (;;) {
    const rows = await db
      .selectFrom('user_subscriptions')
      .select(['id', 'user_id', 'period_end', 'period_unit', 'period_count', 'ends_at'])
      .where('status', '=', 'active')
      .where('period_end', '<=', now)
      .where('ends_at', '<>', 0)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    for (const row of rows) {
      const periodEnd = Number(row.period_end);
      const endsAt = Number(row.ends_at);
      if (endsAt > periodEnd && isPeriodUnit(row.period_unit) && row.period_count > 0) {
        let start = periodEnd;
        let end = Math.min(addPeriod(start, row.period_unit, row.period_count), endsAt);
        while (end <= now && end < endsAt) {
          start = end;
          end = Math.min(addPeriod(start, row.period_unit, row.period_count), endsAt);
        }
        if (end > now) {
          const result = await db
            .updateTable('user_subscriptions')
            .set((eb) => ({ period_start: start, period_end: end, remaining_quota: eb.ref('period_quota'), updated_time: now }))
            .where('id', '=', row.id)
            .where('status', '=', 'active')
            .where('period_end', '=', periodEnd)
            .executeTakeFirst();
          run.renewed += Number(result.numUpdatedRows);
          continue;
        }
      }
      const result = await db
        .updateTable('user_subscriptions')
        .set({ status: 'expired', updated_time: now })
        .where('id', '=', row.id)
        .where('status', '=', 'active')
        .where('period_end', '=', periodEnd)
        .where('ends_at', '=', endsAt)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) {
        run.expired += 1;
        if (!run.expiredUsers.includes(row.user_id)) run.expiredUsers.push(row.user_id);
      }
    }
    if (rows.length < batchSize) return run;
    afterId = rows[rows.length - 1]!.id;
  }
}

/**
 * A paid renewal of a Stripe subscription: the period [start, end) begins with a full allowance,
 * once, however often and concurrently `invoice.paid` is delivered (only a later period replaces the
 * current one). Answers whether this call started it.
 */
export async function startStripePeriod(db: Db, stripeSubscriptionId: string, start: number, end: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('user_subscriptions')
    .set((eb) => ({ period_start: start, period_end: end, remaining_quota: eb.ref('period_quota'), updated_time: now }))
    .where('stripe_subscription_id', '=', stripeSubscriptionId)
    .where('status', '=', 'active')
    .where('period_end', '<', end)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
