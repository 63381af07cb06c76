import type { AppContext } from '../../context.js';
import { relayErrors } from '../errors.js';

const windowOf = (ctx: AppContext) => Math.max(0, ctx.options.number('ModelRequestRateLimitDurationMinutes')) * 60;

/** The cache key of a user's success window: a slot taken at admission, kept when the request is billed. */
export type SuccessSlot = string | null;

/**
 * ModelRequestRateLimit*: per user and window, at most Count requests (0 = unlimited, failures
 * included) and at most SuccessCount successful ones. A success slot is taken at admission, so
 * requests in flight count against SuccessCount (atomic in ctx.cache: instances sharing Redis share
 * the limit); the caller gives it back with releaseSuccessSlot when the request fails and keeps it
 * when it is billed. Returns the slot, null when SuccessCount is off (then no cache round trip); or
 * null at once, with no promise to wait on, when the limit is off (every call reads this).
 */
export function checkModelRateLimit(ctx: AppContext, userId: number): Promise<SuccessSlot> | null {
  if (!ctx.options.bool('ModelRequestRateLimitEnabled')) return null;
  const window = windowOf(ctx);
  if (window === 0) return null;
  return takeModelRateLimit(ctx, userId, window);
}

async function takeModelRateLimit(ctx: AppContext, userId: number, window: number): Promise<SuccessSlot> {
  const minutes = ctx.options.number('ModelRequestRateLimitDurationMinutes');
  const successLimit = ctx.options.number('ModelRequestRateLimitSuccessCount');
  let slot: SuccessSlot = null;
  if (successLimit > 0) {
    const key = `rl:model:ok:${userId}`;
    if (!(await ctx.cache.take(key, successLimit, window))) {
      throw relayErrors.rateLimited(`您已达到请求数限制：${minutes} 分钟内最多成功请求 ${successLimit} 次`);
    }
    slot = key;
  }
  const totalLimit = ctx.options.number('ModelRequestRateLimitCount');
  if (totalLimit > 0 && (await ctx.cache.hit(`rl:model:all:${userId}`, window)) > totalLimit) {
    releaseSuccessSlot(ctx, slot);
    throw relayErrors.rateLimited(`您已达到总请求数限制：${minutes} 分钟内最多请求 ${totalLimit} 次`);
  }
  return slot;
}

/**
 * Gives back the success slot of a request that failed (nothing billed). A slot given back after its
 * window ended frees one in the next window: the limit errs by at most the requests in flight at a
 * window's end.
 */
export function releaseSuccessSlot(ctx: AppContext, slot: SuccessSlot): void {
  if (slot !== null) void ctx.cache.giveBack(slot).catch(() => undefined);
}
