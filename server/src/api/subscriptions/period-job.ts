import { checkPeriodically, underLease } from '../../cache/periodic.js';
import type { AppContext } from '../../context.js';
import { renewDuePeriods, type PeriodRun } from '../../subscriptions/renew-periods.js';

const checkEveryMs = 60 * 1000;
const firstCheckMs = 10 * 1000;
/** A crashed instance's lock expires with it; a run takes far less. */
const lockTtlMs = 5 * 60 * 1000;
const lockKey = 'job:subscription-periods';

/**
 * One run of the subscription period job: by one instance of the cluster at a time (a cache lease,
 * Redis when instances share it), it starts the next period of grants whose period ended and
 * expires subscriptions whose last period ended (renewDuePeriods: conditional UPDATEs, so even two
 * runs at once change each subscription once). Answers what changed, or null when another instance
 * holds the lock.
 */
export async function runSubscriptionPeriods(ctx: AppContext, options: { now?: number } = {}): Promise<PeriodRun | null> {
  const run = await underLease(ctx.cache, lockKey, lockTtlMs, () =>
    renewDuePeriods(ctx.storage.db, options.now ?? Math.floor(Date.now() / 1000)),
  );
  // Every instance re-reads these users: one whose last subscription ended stops querying for funding.
  for (const userId of run?.expiredUsers ?? []) await ctx.bus.publish('users', String(userId));
  return run;
}

/** Runs the period job every minute on this instance; stopped with the app. */
export function startSubscriptionPeriods(
  ctx: AppContext,
  log: { info(object: object, message: string): void; error(object: object, message: string): void },
): void {
  const check = () => {
    runSubscriptionPeriods(ctx)
      .then((run) => {
        if (run && run.renewed + run.expired > 0)
          log.info({ renewed: run.renewed, expired: run.expired }, 'subscription periods: renewed and expired');
      })
      .catch((error: unknown) => log.error({ err: error }, 'subscription period job failed; it runs again at the next check'));
  };
  checkPeriodically(ctx, check, firstCheckMs, checkEveryMs);
}
