import { doc } from '../openapi.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loginAnswerSchema, noData, oauthCallbackSchema, oauthStateSchema, oidcDiscoverySchema } from '@modelgate/shared';
import { ok } from '../../lib/envelope.js';
import { AppError, forbidden } from '../../lib/errors.js';
import { requireServerAddress } from '../../lib/server-address.js';
import { authOf, type AuthUser } from '../auth/guards.js';
import { sessionCookieName } from '../../lib/session.js';
import type { AppContext } from '../../context.js';
import type { RouteDeps } from '../route-deps.js';
import { completeFirstStep } from '../two-factor/first-step.js';
import { parseInput } from '../validate.js';
import { bindAccount } from './bind-account.js';
import { discoverOidc } from './discover-oidc.js';
import { consumeOAuthState, createOAuthState } from './oauth-state.js';
import { providerInfo } from './providers/columns.js';
import { fetchGitHubAccount } from './providers/github.js';
import { fetchLinuxDoAccount } from './providers/linuxdo.js';
import { fetchOidcAccount } from './providers/oidc.js';
import { verifyTelegramLogin } from './providers/telegram.js';
import type { ExchangeContext, ProviderAccount, ProviderName } from './providers/types.js';
import { fetchWeChatAccount } from './providers/wechat.js';
import {
  callbackParamsSchema,
  callbackQuerySchema,
  oidcDiscoveryBodySchema,
  stateQuerySchema,
  telegramQuerySchema,
  unbindParamsSchema,
  weChatQuerySchema,
} from './schemas.js';
import { signInWithAccount } from './sign-in-with-account.js';
import { unbindAccount } from './unbind-account.js';

const codeExchanges = { github: fetchGitHubAccount, oidc: fetchOidcAccount, linuxdo: fetchLinuxDoAccount };

function requireEnabled(ctx: AppContext, provider: ProviderName): void {
  const { enabledOption, label } = providerInfo[provider];
  if (!ctx.options.bool(enabledOption)) throw forbidden(`管理员未开启通过 ${label} 登录以及注册`);
}

export const noServerAddressMessage = '管理员未设置服务器地址，无法通过 GitHub、OIDC 或 Linux DO 登录';

/**
 * Where the provider sends the browser back: {ServerAddress}/oauth/{provider}, never an origin taken
 * from the request's Host or X-Forwarded-Host. Without ServerAddress the redirect sign-ins are refused.
 */
function redirectUriOf(ctx: AppContext, provider: string): string {
  return `${requireServerAddress(ctx.options, noServerAddressMessage)}/oauth/${provider}`;
}

/**
 * Signs in the account's user and sets the session cookie, or, for a user with a second factor,
 * asks for the second step (two-factor/first-step.ts); answers what the console stores.
 */
async function signIn(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, account: ProviderAccount, aff = '') {
  const { user, sessionVersion } = await signInWithAccount(ctx, account, aff);
  const { data, message } = await completeFirstStep(ctx, request, reply, user, sessionVersion);
  return ok(data, message);
}

/** Third-party sign-in and account binding under /api/oauth. */
export function registerOAuthRoutes(api: FastifyInstance, { ctx, guards, critical }: RouteDeps): void {
  /** The signed-in user when the request carries a valid session, else null (a banned user is refused). */
  async function signedInUser(request: FastifyRequest, reply: FastifyReply): Promise<AuthUser | null> {
    if (!request.cookies?.[sessionCookieName]) return null;
    try {
      await guards.user.call(api, request, reply);
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthenticated') return null;
      throw error;
    }
    return request.auth;
  }

  api.get(
    '/oauth/state',
    { schema: doc('oauth', 'create a one-use state for an authorize redirect', { querystring: stateQuerySchema, data: oauthStateSchema }) },
    async (request, reply) => {
      const { aff } = parseInput(stateQuerySchema, request.query);
      // A state starts a redirect sign-in (GitHub, OIDC, Linux DO): refused here, before the browser leaves, when it could not come back.
      requireServerAddress(ctx.options, noServerAddressMessage);
      return ok(await createOAuthState(ctx, request, reply, aff));
    },
  );

  api.get(
    '/oauth/:provider',
    {
      preHandler: critical,
      schema: doc('oauth', "a redirect provider's callback: sign in, or bind for a signed-in user", {
        params: callbackParamsSchema,
        querystring: callbackQuerySchema,
        data: oauthCallbackSchema,
      }),
    },
    async (request, reply) => {
      const { provider } = parseInput(callbackParamsSchema, request.params);
      const { code, state, iss } = parseInput(callbackQuerySchema, request.query);
      requireEnabled(ctx, provider);
      const redirectUri = redirectUriOf(ctx, provider);
      const { aff } = await consumeOAuthState(ctx, request, reply, state);
      const user = await signedInUser(request, reply);
      const exchange: ExchangeContext = { log: request.log, redirectUri, state, issuer: iss };
      const account = await codeExchanges[provider](ctx, code, exchange);
      if (user) {
        await bindAccount(ctx, user.id, account);
        return ok(null, 'bind');
      }
      return signIn(ctx, request, reply, account, aff);
    },
  );

  api.get(
    '/oauth/wechat',
    {
      preHandler: critical,
      schema: doc('oauth', 'sign in with a WeChat code', { querystring: weChatQuerySchema, data: loginAnswerSchema }),
    },
    async (request, reply) => {
      const { code } = parseInput(weChatQuerySchema, request.query);
      requireEnabled(ctx, 'wechat');
      return signIn(ctx, request, reply, await fetchWeChatAccount(ctx, code, request.log));
    },
  );

  api.get(
    '/oauth/telegram/login',
    { preHandler: critical, schema: doc('oauth', 'sign in with Telegram', { querystring: telegramQuerySchema, data: loginAnswerSchema }) },
    async (request, reply) => {
      const fields = parseInput(telegramQuerySchema, request.query);
      requireEnabled(ctx, 'telegram');
      return signIn(ctx, request, reply, verifyTelegramLogin(ctx, fields));
    },
  );

  // Binding and unbinding for the signed-in user (/personal)
  const user = { preHandler: guards.user };
  api.get(
    '/oauth/wechat/bind',
    { ...user, schema: doc('oauth', 'bind a WeChat account', { querystring: weChatQuerySchema, data: noData }) },
    async (request) => {
      const { code } = parseInput(weChatQuerySchema, request.query);
      requireEnabled(ctx, 'wechat');
      await bindAccount(ctx, authOf(request).id, await fetchWeChatAccount(ctx, code, request.log));
      return ok(null, '微信账户绑定成功！');
    },
  );
  api.get(
    '/oauth/telegram/bind',
    { ...user, schema: doc('oauth', 'bind a Telegram account', { querystring: telegramQuerySchema, data: noData }) },
    async (request) => {
      const fields = parseInput(telegramQuerySchema, request.query);
      requireEnabled(ctx, 'telegram');
      await bindAccount(ctx, authOf(request).id, verifyTelegramLogin(ctx, fields));
      return ok(null, 'Telegram 账户绑定成功！');
    },
  );
  api.delete(
    '/oauth/:provider/bind',
    { ...user, schema: doc('oauth', 'unbind a third-party account', { params: unbindParamsSchema, data: noData }) },
    async (request) => {
      const { provider } = parseInput(unbindParamsSchema, request.params);
      await unbindAccount(ctx, authOf(request).id, provider);
      return ok(null, '解绑成功');
    },
  );

  // The system settings' OIDC "fetch configuration" (root, who alone sets the oidc.* options): the
  // server fetches the well-known document, so http:// intranet providers work under a strict CSP.
  api.post(
    '/oauth/oidc/discovery',
    {
      preHandler: guards.root,
      schema: doc('oauth', 'fetch an OIDC discovery document', { body: oidcDiscoveryBodySchema, data: oidcDiscoverySchema }),
    },
    async (request) => {
      const { well_known: wellKnown } = parseInput(oidcDiscoveryBodySchema, request.body);
      return ok(await discoverOidc(request.log, wellKnown, ctx.config.oidcDiscoveryTimeoutSeconds));
    },
  );
}
