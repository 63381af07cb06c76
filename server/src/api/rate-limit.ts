import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Cache } from '../cache/index.js';
import { AppError } from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A payment gateway's callback (Stripe's webhook, Epay's notify): its signature authenticates it,
     * and it comes from the gateway's few addresses, so a per-IP limit would refuse paid orders.
     */
    paymentCallback?: boolean;
  }
}

/** Route options of a payment gateway's callback: never counted by the per-IP limits. */
export const paymentCallbackRoute = { config: { paymentCallback: true } } as const;

export interface RateLimitRule {
  name: string;
  max: number;
  durationSeconds: number;
}

/**
 * Per-IP fixed-window limit. Counts live in the cache, so with Redis every instance shares one
 * count. max 0 disables the rule. Payment callbacks (paymentCallbackRoute) are neither counted
 * nor refused.
 */
export function rateLimitByIp(cache: Cache, rule: RateLimitRule): preHandlerAsyncHookHandler {
  return async function limitRate(request: FastifyRequest, reply: FastifyReply) {
    if (rule.max <= 0 || request.routeOptions.config.paymentCallback === true) return;
    const count = await cache.hit(`rl:${rule.name}:${request.ip}`, rule.durationSeconds);
    if (count > rule.max) {
      reply.header('Retry-After', String(rule.durationSeconds));
      throw new AppError('rate_limited', '请求次数过多，请稍后再试！');
    }
  };
}

export const tooManySignInFailuresMessage = '登录失败次数过多，请稍后再试';

/**
 * Failed sign-ins counted per IP and per account in fixed windows (the critical rule's size), in
 * the cache so every instance shares them. Successful sign-ins are not counted, so an operator who
 * signs in often is never locked out; guessing a password from one IP or against one account is.
 */
export function createSignInLimiter(cache: Cache, rule: RateLimitRule) {
  const keys = (ip: string, account: string) => [`rl:${rule.name}:ip:${ip}`, `rl:${rule.name}:account:${account.trim().toLowerCase()}`];
  return {
    async assertAllowed(reply: FastifyReply, ip: string, account: string): Promise<void> {
      if (rule.max <= 0) return;
      const counts = await Promise.all(keys(ip, account).map((key) => cache.count(key)));
      if (counts.some((count) => count >= rule.max)) {
        reply.header('Retry-After', String(rule.durationSeconds));
        throw new AppError('rate_limited', tooManySignInFailuresMessage);
      }
    },
    async recordFailure(ip: string, account: string): Promise<void> {
      if (rule.max <= 0) return;
      await Promise.all(keys(ip, account).map((key) => cache.hit(key, rule.durationSeconds)));
    },
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;

export const tooManyCodeAttemptsMessage = '验证码尝试次数过多，请稍后再试';

export interface CodeAttemptRule {
  accountMax: number;
  ipMax: number;
  durationSeconds: number;
}

/**
 * Second-factor code attempts, counted per account and per IP in fixed windows in the cache (Redis
 * across instances). Each attempt takes a slot before the code is checked (`take` is atomic, so a
 * burst of parallel guesses cannot slip past the count) and a right code gives its slot back: only
 * wrong codes (and attempts in flight) use up the window. Six digits with one step of drift either
 * side are three codes in a million, so five wrong tries per five minutes make guessing hopeless.
 */
export function createCodeAttemptLimiter(cache: Cache, rule: CodeAttemptRule) {
  const accountKey = (userId: number) => `rl:2fa:account:${userId}`;
  const ipKey = (ip: string) => `rl:2fa:ip:${ip}`;
  return {
    /** Takes one attempt for the account and the IP, or answers 429 (taking nothing) when either is used up. */
    async begin(reply: FastifyReply, ip: string, userId: number): Promise<void> {
      const accountTaken = await cache.take(accountKey(userId), rule.accountMax, rule.durationSeconds);
      const ipTaken = accountTaken && (await cache.take(ipKey(ip), rule.ipMax, rule.durationSeconds));
      if (accountTaken && ipTaken) return;
      if (accountTaken) await cache.giveBack(accountKey(userId));
      reply.header('Retry-After', String(rule.durationSeconds));
      throw new AppError('rate_limited', tooManyCodeAttemptsMessage);
    },
    /** A right code: its attempt does not count. */
    async succeeded(ip: string, userId: number): Promise<void> {
      await Promise.all([cache.giveBack(accountKey(userId)), cache.giveBack(ipKey(ip))]);
    },
  };
}

export type CodeAttemptLimiter = ReturnType<typeof createCodeAttemptLimiter>;
