import * as client from 'openid-client';
import { createHash } from 'node:crypto';
import { invalidInput } from '../../../lib/errors.js';
import type { AppContext } from '../../../context.js';
import type { ExchangeContext, ProviderAccount } from './types.js';

const discoveryTtlMs = 5 * 60_000;
const timeoutSeconds = 10;
const discovered = new Map<string, { config: client.Configuration; expiresAt: number }>();

export const oidcDiscoveryFailedMessage = '获取 OIDC 配置失败，请检查网络状况和 Well-Known URL 是否正确';

/**
 * The OIDC client of the current options, from the panel's well-known document (discovery kept
 * 5 minutes; a failure is not kept). Plain-http providers are allowed since the panel accepts them.
 */
async function oidcConfiguration(ctx: AppContext, log: ExchangeContext['log']): Promise<client.Configuration> {
  const wellKnown = ctx.options.get('oidc.well_known');
  const clientId = ctx.options.get('oidc.client_id');
  const clientSecret = ctx.options.get('oidc.client_secret');
  if (!wellKnown || !clientId) throw invalidInput('管理员未配置 OIDC 的 Well-Known URL 或 Client ID');
  const key = createHash('sha256').update(`${wellKnown}\n${clientId}\n${clientSecret}`).digest('hex');
  const cached = discovered.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.config;
  try {
    const config = await client.discovery(new URL(wellKnown), clientId, { client_secret: clientSecret }, undefined, {
      execute: wellKnown.startsWith('http://') ? [client.allowInsecureRequests] : [],
      timeout: timeoutSeconds,
    });
    discovered.set(key, { config, expiresAt: Date.now() + discoveryTtlMs });
    return config;
  } catch (error) {
    log.warn({ provider: 'oidc', err: error instanceof Error ? error.message : String(error) }, 'OIDC discovery failed');
    throw invalidInput(oidcDiscoveryFailedMessage);
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value.slice(0, 191) : '');

/**
 * The authorization-code grant with openid-client: token request, ID-token verification
 * (signature from the provider's JWKS, issuer, audience, expiry), then the UserInfo endpoint
 * for the same subject. The subject is the stored id.
 */
export async function fetchOidcAccount(
  ctx: AppContext,
  code: string,
  { log, redirectUri, state, issuer }: ExchangeContext,
): Promise<ProviderAccount> {
  const config = await oidcConfiguration(ctx, log);
  // The authorization response as the browser got it: code, state and (RFC 9207) the issuer.
  const callback = new URL(redirectUri);
  callback.searchParams.set('code', code);
  callback.searchParams.set('state', state);
  if (issuer) callback.searchParams.set('iss', issuer);
  let claims: client.IDToken;
  let userInfo: Record<string, unknown> = {};
  try {
    const tokens = await client.authorizationCodeGrant(
      config,
      callback,
      { idTokenExpected: true, expectedState: state },
      { redirect_uri: redirectUri },
    );
    const verified = tokens.claims();
    if (!verified) throw new Error('no ID token');
    claims = verified;
    userInfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub).catch((error: unknown) => {
      log.warn(
        { provider: 'oidc', err: error instanceof Error ? error.message : String(error) },
        'OIDC userinfo failed; using the ID token claims',
      );
      return {};
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log.warn({ provider: 'oidc', err: reason }, 'OIDC code exchange failed');
    if (error instanceof client.ResponseBodyError) throw invalidInput('OIDC 授权码无效或已过期，请重新登录');
    throw invalidInput('OIDC 登录校验失败，请重新登录');
  }
  const username = text(userInfo.preferred_username) || text(claims.preferred_username) || text(userInfo.name) || '';
  return {
    provider: 'oidc',
    externalId: claims.sub.slice(0, 191),
    username,
    displayName: text(userInfo.name) || text(claims.name) || username,
    email: text(userInfo.email) || text(claims.email),
  };
}
