import type { AppContext } from '../../api/context.js';
import { relayErrors } from '../errors.js';

const windowOf = (ctx: AppContext) => Math.max(0, ctx.options.number('ModelRequestRateLimitDurationMinutes')) * 60;

/**
 * ModelRequestRateLimit*: per user and window, at most Count requests (0 = unlimited) and at most
 * SuccessCount successful ones. Counted in ctx.cache, so instances sharing Redis share the limit.
 */
export async function checkModelRateLimit(ctx: AppContext, userId: number): Promise<void> {
  if (!ctx.options.bool('ModelRequestRateLimitEnabled')) return;
  const window = windowOf(ctx);
  if (window === 0) return;
  const successLimit = ctx.options.number('ModelRequestRateLimitSuccessCount');
  if (successLimit > 0 && (await ctx.cache.count(`rl:model:ok:${userId}`)) >= successLimit) {
    throw relayErrors.rateLimited(`您已达到请求数限制：${ctx.options.number('ModelRequestRateLimitDurationMinutes')} 分钟内最多成功请求 ${successLimit} 次`);
  }
  const totalLimit = ctx.options.number('ModelRequestRateLimitCount');
  if (totalLimit > 0 && (await ctx.cache.hit(`rl:model:all:${userId}`, window)) > totalLimit) {
    throw relayErrors.rateLimited(`您已达到总请求数限制：${ctx.options.number('ModelRequestRateLimitDurationMinutes')} 分钟内最多请求 ${totalLimit} 次`);
  }
}

export function countModelSuccess(ctx: AppContext, userId: number): void {
  if (!ctx.options.bool('ModelRequestRateLimitEnabled')) return;
  const window = windowOf(ctx);
  if (window > 0) void ctx.cache.hit(`rl:model:ok:${userId}`, window).catch(() => undefined);
}
