import { request, type Dispatcher } from 'undici';
import { UpstreamError } from '../../errors.js';
import type { ServiceAccount } from './credentials.js';
import { createServiceAccountJwt } from './jwt.js';

interface CachedToken { accessToken: string; expiresAtMs: number }

/** Refresh this long before the token's expiry, so a request never starts with a dying token. */
const refreshMarginMs = 5 * 60 * 1000;

/** POST token_uri with the JWT bearer grant → `{access_token, expires_in}`. */
async function exchangeJwt(account: ServiceAccount, dispatcher: Dispatcher, nowMs: number): Promise<CachedToken> {
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
    const detail = typeof json.error_description === 'string' ? json.error_description : typeof json.error === 'string' ? json.error : text.slice(0, 200);
    // A rejected assertion is the channel key's fault: 401, so failover moves to another channel.
    const status = response.statusCode >= 500 ? response.statusCode : 401;
    throw new UpstreamError(status, `Vertex AI 获取访问令牌失败：${detail}`, typeof json.error === 'string' ? json.error : null, text);
  }
  const expiresIn = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3600;
  return { accessToken: json.access_token, expiresAtMs: nowMs + expiresIn * 1000 };
}

/**
 * In-memory access tokens per service account (client_email + private_key_id), reused until five
 * minutes before expiry. Concurrent callers share one in-flight exchange per account; a failed
 * exchange is not cached.
 */
export class VertexTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inFlight = new Map<string, Promise<CachedToken>>();

  constructor(private readonly now: () => number = Date.now) {}

  async getAccessToken(account: ServiceAccount, dispatcher: Dispatcher): Promise<string> {
    const cacheKey = `${account.client_email}\n${account.private_key_id}\n${account.token_uri}`;
    const cached = this.tokens.get(cacheKey);
    if (cached && this.now() < cached.expiresAtMs - refreshMarginMs) return cached.accessToken;
    let pending = this.inFlight.get(cacheKey);
    if (!pending) {
      pending = exchangeJwt(account, dispatcher, this.now())
        .then((token) => {
          this.tokens.set(cacheKey, token);
          return token;
        })
        .finally(() => this.inFlight.delete(cacheKey));
      this.inFlight.set(cacheKey, pending);
    }
    return (await pending).accessToken;
  }

  clear(): void {
    this.tokens.clear();
  }
}

/** The process-wide cache the Vertex adapter uses. */
export const vertexTokenCache = new VertexTokenCache();
