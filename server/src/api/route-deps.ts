import type { preHandlerAsyncHookHandler } from 'fastify';
import type { createGuards } from './auth/guards.js';
import type { RelayFacade } from '../relay/facade.js';
import type { AppContext } from '../context.js';
import type { CodeAttemptLimiter, rateLimitByIp, SignInLimiter } from './rate-limit.js';

// Its own module so that the route files (api/*/routes.ts) need not import api/routes.ts,
// which imports them all: the seam that keeps the route files out of an import circle.
/** What every api/<domain>/routes.ts is given by registerApiRoutes (api/routes.ts). */
export type RouteDeps = {
  ctx: AppContext;
  /** What the API may use of the relay: probes, the served-model catalogue (relay/facade.ts). */
  relay: RelayFacade;
  guards: ReturnType<typeof createGuards>;
  /** preHandler for login, register, verification and password reset. */
  critical: ReturnType<typeof rateLimitByIp>;
  /** Failed sign-ins per IP and per account (successful ones are not counted). */
  signIn: SignInLimiter;
  /** Second-factor code attempts per account and per IP (wrong codes count, right ones are given back). */
  codeAttempts: CodeAttemptLimiter;
  /** preHandler: the bot check (TurnstileCheckEnabled) for login, register, verification and reset. */
  turnstile: preHandlerAsyncHookHandler;
};
