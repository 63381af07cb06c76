import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { createGuards } from './auth/guards.js';
import { createTurnstileCheck } from './auth/turnstile.js';
import type { RelayFacade } from '../relay/facade.js';
import type { AppContext } from '../context.js';
import { createCodeAttemptLimiter, createSignInLimiter, rateLimitByIp, type CodeAttemptLimiter, type SignInLimiter } from './rate-limit.js';
import { registerStatusRoutes } from './status/routes.js';
import { registerChannelProbeRoutes } from './channels/probe-routes.js';
import { registerPricingRoutes } from './pricing/routes.js';
import { registerChannelRoutes } from './channels/routes.js';
import { registerTokenRoutes } from './tokens/routes.js';
import { registerTokenUsageRoutes } from './token-usage/routes.js';
import { registerLogRoutes } from './logs/routes.js';
import { registerTaskLogRoutes } from './task-logs/routes.js';
import { registerDataRoutes } from './data/routes.js';
import { registerSetupRoutes } from './setup/routes.js';
import { registerUserRoutes } from './users/routes.js';
import { registerOptionRoutes } from './options/routes.js';
import { registerGroupRoutes } from './groups/routes.js';
import { registerRedemptionRoutes } from './redemptions/routes.js';
import { registerTopUpRoutes } from './topup/routes.js';
import { registerPaymentRoutes } from './payments/routes.js';
import { registerSubscriptionRoutes } from './subscriptions/routes.js';
import { registerVerificationRoutes } from './verification/routes.js';
import { registerOAuthRoutes } from './oauth/routes.js';
import { registerTwoFactorRoutes } from './two-factor/routes.js';
import { registerPasskeyRoutes } from './passkeys/routes.js';
import { startLogRetention } from './logs/log-retention.js';
import { installAuditTrail } from './audit/audit-trail.js';
import { startAuditRetention } from './audit/audit-retention.js';
import { registerAuditRoutes } from './audit/routes.js';

/** Mounts every management API domain under /api, behind the global per-IP rate limit. */
export async function registerApiRoutes(api: FastifyInstance, ctx: AppContext, relay: RelayFacade): Promise<void> {
  api.addHook('preHandler', rateLimitByIp(ctx.cache, { name: 'api', ...ctx.config.globalApiRateLimit }));
  startLogRetention(ctx, api.log);
  // Before any route: it adds its preHandler to every mutating route as they are registered.
  installAuditTrail(api, ctx);
  startAuditRetention(ctx, api.log);
  const guards = createGuards(ctx);
  const critical = rateLimitByIp(ctx.cache, { name: 'critical', ...ctx.config.criticalRateLimit });
  const signIn = createSignInLimiter(ctx.cache, { name: 'signin-failures', ...ctx.config.criticalRateLimit });
  const turnstile = createTurnstileCheck(ctx);
  const codeAttempts = createCodeAttemptLimiter(ctx.cache, ctx.config.twoFactorRateLimit);
  const deps = { ctx, relay, guards, critical, signIn, turnstile, codeAttempts };
  registerStatusRoutes(api, deps);
  registerChannelProbeRoutes(api, deps);
  registerPricingRoutes(api, deps);
  registerChannelRoutes(api, deps);
  registerTokenRoutes(api, deps);
  registerTokenUsageRoutes(api, deps);
  registerLogRoutes(api, deps);
  registerTaskLogRoutes(api, deps);
  registerDataRoutes(api, deps);
  registerSetupRoutes(api, deps);
  registerTwoFactorRoutes(api, deps);
  registerPasskeyRoutes(api, deps);
  registerUserRoutes(api, deps);
  registerOptionRoutes(api, deps);
  registerGroupRoutes(api, deps);
  registerRedemptionRoutes(api, deps);
  registerTopUpRoutes(api, deps);
  await registerPaymentRoutes(api, deps);
  registerSubscriptionRoutes(api, deps);
  registerOAuthRoutes(api, deps);
  registerVerificationRoutes(api, deps);
  registerAuditRoutes(api, deps);
}

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
