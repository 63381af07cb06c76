import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Cache } from '../cache/index.js';
import { AppError } from '../lib/errors.js';

export interface RateLimitRule {
  name: string;
  max: number;
  durationSeconds: number;
}

/**
 * Per-IP fixed-window limit. Counts live in the cache, so with Redis every instance shares one
 * count. max 0 disables the rule.
 */
export function rateLimitByIp(cache: Cache, rule: RateLimitRule): preHandlerAsyncHookHandler {
  return async function limitRate(request: FastifyRequest, reply: FastifyReply) {
    if (rule.max <= 0) return;
    const count = await cache.hit(`rl:${rule.name}:${request.ip}`, rule.durationSeconds);
    if (count > rule.max) {
      reply.header('Retry-After', String(rule.durationSeconds));
      throw new AppError('rate_limited', '请求次数过多，请稍后再试！');
    }
  };
}
