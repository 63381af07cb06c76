import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidInput } from '../../lib/errors.js';
import { randomHex, safeEqual } from '../../lib/crypto.js';
import type { AppContext } from '../../context.js';

export const stateCookieName = 'oauth_state';
const stateTtlSeconds = 600;
export const invalidStateMessage = 'state 无效、已使用或已过期，请重新发起登录';

const stateKey = (state: string) => `oauth:state:${state}`;
const cookieOptions = (request: FastifyRequest) => ({
  httpOnly: true,
  // Lax: the callback page is reached by a top-level navigation from the provider.
  sameSite: 'lax' as const,
  path: '/api/oauth',
  secure: request.protocol === 'https',
});

/**
 * Issues a one-use state for an authorize redirect: kept in the cache (shared by every instance)
 * with the invite code, and bound to this browser by an HttpOnly cookie holding the same value.
 */
export async function createOAuthState(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, aff: string): Promise<string> {
  const state = randomHex(16);
  await ctx.cache.set(stateKey(state), JSON.stringify({ aff }), stateTtlSeconds);
  reply.setCookie(stateCookieName, state, { ...cookieOptions(request), maxAge: stateTtlSeconds });
  return state;
}

/**
 * Checks a callback's state against this browser's cookie and the cache, and spends it: a second
 * use (even racing on another instance) is refused. Returns the invite code that came with it.
 */
export async function consumeOAuthState(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  state: string,
): Promise<{ aff: string }> {
  const cookie = request.cookies?.[stateCookieName] ?? '';
  if (state === '' || cookie === '' || !safeEqual(state, cookie)) throw invalidInput(invalidStateMessage);
  const stored = await ctx.cache.get(stateKey(state));
  if (stored === null) throw invalidInput(invalidStateMessage);
  if ((await ctx.cache.hit(`oauth:state-used:${state}`, stateTtlSeconds)) !== 1) throw invalidInput(invalidStateMessage);
  await ctx.cache.del(stateKey(state));
  reply.clearCookie(stateCookieName, cookieOptions(request));
  try {
    const parsed = JSON.parse(stored) as { aff?: unknown };
    return { aff: typeof parsed.aff === 'string' ? parsed.aff : '' };
  } catch {
    return { aff: '' };
  }
}
