import type { AppContext } from '../context.js';
import type { OptionKey } from '../options/registry.js';
import { checkPeriodically, underLease } from './periodic.js';

const dayMs = 24 * 60 * 60 * 1000;
/** How often an instance looks whether the daily run is due (the first look shortly after start). */
const checkEveryMs = 60 * 60 * 1000;
const firstCheckMs = 60 * 1000;
/** The run's lock outlives a long deletion; a crashed instance's lock expires with it. */
const lockTtlMs = 30 * 60 * 1000;

/** A table whose old rows go once a day, after the number of days an option sets (0: kept). */
export interface RetentionPolicy {
  /** The job's cache keys: `job:<key>` (the lock) and `job:<key>:last` (the last run's time). */
  key: string;
  /** The option holding the days rows are kept. */
  daysOption: OptionKey;
  /** The log line of a run that removed rows, and the start of a failed run's. */
  label: string;
  /** Removes the rows older than `before` (unix seconds); answers how many. */
  prune(ctx: AppContext, before: number): Promise<number>;
}

export interface RetentionJob {
  /**
   * One run: by one instance at a time (a cache lease: Redis when several instances share it), at
   * most once a day across them (the last run's time is kept in the cache; `force` skips that check).
   * Answers the rows removed, or null when it did not run (off, not due, or another instance holds the lock).
   */
  run(ctx: AppContext, options?: { force?: boolean; now?: number }): Promise<number | null>;
  /** Schedules the daily run on this instance; stopped with the app. */
  start(ctx: AppContext, log: { info(object: object, message: string): void; error(object: object, message: string): void }): void;
}

/** The daily retention job of one table (logs, the audit trail): the one schedule and lease they share. */
export function retentionJob(policy: RetentionPolicy): RetentionJob {
  const lockKey = `job:${policy.key}`;
  const lastRunKey = `job:${policy.key}:last`;
  const run: RetentionJob['run'] = async (ctx, options = {}) => {
    const days = ctx.options.number(policy.daysOption);
    if (!(days > 0)) return null;
    const now = options.now ?? Date.now();
    if (!options.force) {
      const last = Number(await ctx.cache.get(lastRunKey));
      if (Number.isFinite(last) && last > 0 && now - last < dayMs - checkEveryMs / 2) return null;
    }
    return underLease(ctx.cache, lockKey, lockTtlMs, async () => {
      const removed = await policy.prune(ctx, Math.floor((now - days * dayMs) / 1000));
      await ctx.cache.set(lastRunKey, String(now), Math.ceil((2 * dayMs) / 1000));
      return removed;
    });
  };
  const start: RetentionJob['start'] = (ctx, log) => {
    const check = () => {
      run(ctx)
        .then((removed) => {
          if (removed !== null) log.info({ removed, days: ctx.options.number(policy.daysOption) }, `${policy.label}: old rows deleted`);
        })
        .catch((error: unknown) => log.error({ err: error }, `${policy.label} failed; it runs again at the next check`));
    };
    checkPeriodically(ctx, check, firstCheckMs, checkEveryMs);
  };
  return { run, start };
}
