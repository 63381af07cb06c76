import { checkPeriodically, underLease } from '../../cache/periodic.js';
import type { AppContext } from '../../context.js';
import { deleteLogsBefore } from './delete-logs.js';

const dayMs = 24 * 60 * 60 * 1000;
/** How often an instance looks whether the daily run is due (the first look shortly after start). */
const checkEveryMs = 60 * 60 * 1000;
const firstCheckMs = 60 * 1000;
/** The run's lock outlives a long deletion; a crashed instance's lock expires with it. */
const lockTtlMs = 30 * 60 * 1000;
const lockKey = 'job:log-retention';
const lastRunKey = 'job:log-retention:last';

/**
 * One run of log retention (LogRetentionDays > 0): the logs older than that many days are deleted in
 * batches, by one instance at a time (a cache lease: Redis when several instances share it), at most
 * once a day across them (the last run's time is kept in the cache). Answers the rows removed, or
 * null when it did not run (off, not due, or another instance holds the lock).
 */
export async function runLogRetention(ctx: AppContext, options: { force?: boolean; now?: number } = {}): Promise<number | null> {
  const days = ctx.options.number('LogRetentionDays');
  if (!(days > 0)) return null;
  const now = options.now ?? Date.now();
  if (!options.force) {
    const last = Number(await ctx.cache.get(lastRunKey));
    if (Number.isFinite(last) && last > 0 && now - last < dayMs - checkEveryMs / 2) return null;
  }
  return underLease(ctx.cache, lockKey, lockTtlMs, async () => {
    const removed = await deleteLogsBefore(ctx, Math.floor((now - days * dayMs) / 1000));
    await ctx.cache.set(lastRunKey, String(now), Math.ceil((2 * dayMs) / 1000));
    return removed;
  });
}

/** Schedules the daily retention run on this instance; stopped with the app. */
export function startLogRetention(ctx: AppContext, log: { info(object: object, message: string): void; error(object: object, message: string): void }): void {
  const check = () => {
    runLogRetention(ctx)
      .then((removed) => {
        if (removed !== null) log.info({ removed, days: ctx.options.number('LogRetentionDays') }, 'log retention: old logs deleted');
      })
      .catch((error: unknown) => log.error({ err: error }, 'log retention failed; it runs again at the next check'));
  };
  checkPeriodically(ctx, check, firstCheckMs, checkEveryMs);
}
