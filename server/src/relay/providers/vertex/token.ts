import { request, type Dispatcher } from 'undici';
import { UpstreamError } from '../../errors.js';
import type { ServiceAccount } from './credentials.js';
import { createServiceAccountJwt } from './jwt.js';
import { TokenCache, type IssuedToken } from '../shared/token-cache.js';

/** Refresh this long before the token's expiry, so a request never starts with a dying token. */
const refreshMarginMs = 5 * 60 * 1000;

/** POST token_uri with the JWT bearer grant → `{access_token, expires_in}`. */
async function exchangeJwt(account: ServiceAccount, dispatcher: Dispatcher, nowMs: number): Promise<IssuedToken> {
  const assertion = createServiceAccountJwt(account, Math.floor(nowMs / 1000));
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
  let response;
  try {
    response = await request(account.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      dispatcher,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
  } catch (error) {
    throw new UpstreamError(0, `Vertex AI 获取访问令牌失败：${(error as Error).message}`, null, '');
  }
  const text = await response.body.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // reported below
  }
  if (response.statusCode !== 200 || typeof json.access_token !== 'string') {
    const detail =
      typeof json.error_description === 'string'
        ? json.error_description
        : typeof json.error === 'string'
          ? json.error
          : text.slice(0, 200);
    // A rejected assertion is the channel key's fault: 401, so failover moves to another channel.
    const status = response.statusCode >= 500 ? response.statusCode : 401;
    throw new UpstreamError(status, `Vertex AI 获取访问令牌失败：${detail}`, typeof json.error === 'string' ? json.error : null, text);
  }
  const expiresIn = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3600;
  return { token: json.access_token, expiresAtMs: nowMs + expiresIn * 1000 };
}

/**
 * In-memory access tokens per service account (client_email + private_key_id), reused until five
 * minutes before expiry; concurrent callers share one exchange (shared/token-cache.ts).
 */
export class VertexTokenCache {
  private readonly cache: TokenCache<{ account: ServiceAccount; dispatcher: Dispatcher }>;

  constructor(now: () => number = Date.now) {
    this.cache = new TokenCache(({ account, dispatcher }, nowMs) => exchangeJwt(account, dispatcher, nowMs), refreshMarginMs, now);
  }

  getAccessToken(account: ServiceAccount, dispatcher: Dispatcher): Promise<string> {
    return this.cache.get(`${account.client_email}\n${account.private_key_id}\n${account.token_uri}`, { account, dispatcher });
  }

  clear(): void {
    this.cache.clear();
  }
}

/** The process-wide cache the Vertex adapter uses. */
export const vertexTokenCache = new VertexTokenCache();
