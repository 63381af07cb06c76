import { checkPeriodically, underLease } from '../../cache/periodic.js';
import type { AppContext } from '../../context.js';
import { pruneAuditBefore } from '../../audit/chain.js';

const dayMs = 24 * 60 * 60 * 1000;
const checkEveryMs = 60 * 60 * 1000;
const firstCheckMs = 60 * 1000;
const lockTtlMs = 30 * 60 * 1000;
const lockKey = 'job:audit-retention';
const lastRunKey = 'job:audit-retention:last';

/**
 * One run of audit retention (AuditLogRetentionDays > 0), the same schedule as log retention
 * (api/logs/log-retention.ts): at most once a day across instances, one at a time under a cache
 * lease. Entries older than that many days go from the oldest end, and the chain's anchor moves to
 * the last removed entry (audit/chain.ts), so what is kept still verifies. Answers the rows removed,
 * or null when it did not run.
 */
export async function runAuditRetention(ctx: AppContext, options: { force?: boolean; now?: number } = {}): Promise<number | null> {
  const days = ctx.options.number('AuditLogRetentionDays');
  if (!(days > 0)) return null;
  const now = options.now ?? Date.now();
  if (!options.force) {
    const last = Number(await ctx.cache.get(lastRunKey));
    if (Number.isFinite(last) && last > 0 && now - last < dayMs - checkEveryMs / 2) return null;
  }
  return underLease(ctx.cache, lockKey, lockTtlMs, async () => {
    const removed = await pruneAuditBefore(ctx.storage, Math.floor((now - days * dayMs) / 1000));
    await ctx.cache.set(lastRunKey, String(now), Math.ceil((2 * dayMs) / 1000));
    return removed;
  });
}

/** Schedules the daily audit retention run on this instance; stopped with the app. */
export function startAuditRetention(ctx: AppContext, log: { info(object: object, message: string): void; error(object: object, message: string): void }): void {
  const check = () => {
    runAuditRetention(ctx)
      .then((removed) => {
        if (removed !== null) log.info({ removed, days: ctx.options.number('AuditLogRetentionDays') }, 'audit retention: old entries deleted');
      })
      .catch((error: unknown) => log.error({ err: error }, 'audit retention failed; it runs again at the next check'));
  };
  checkPeriodically(ctx, check, firstCheckMs, checkEveryMs);
}
