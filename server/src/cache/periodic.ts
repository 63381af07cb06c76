import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Cache } from './types.js';

/**
 * Runs `work` while holding a cluster-wide lease on `key` (Redis when instances share it; this process
 * alone otherwise); null, without running it, when another holder has the lease. The lease expires
 * after `ttlMs` if this instance dies mid-run.
 */
export async function underLease<T>(cache: Cache, key: string, ttlMs: number, work: () => Promise<T>): Promise<T | null> {
  const holder = randomBytes(8).toString('hex');
  if (!(await cache.acquireLease(key, holder, 1, ttlMs))) return null;
  try {
    return await work();
  } finally {
    await cache.releaseLease(key, holder);
  }
}

/** Calls `check` after `firstMs`, then every `everyMs`, on unref'd timers cleared when the app closes. */
export function checkPeriodically(ctx: AppContext, check: () => void, firstMs: number, everyMs: number): void {
  const first = setTimeout(check, firstMs);
  const every = setInterval(check, everyMs);
  first.unref();
  every.unref();
  ctx.onClose.push(async () => {
    clearTimeout(first);
    clearInterval(every);
  });
}
