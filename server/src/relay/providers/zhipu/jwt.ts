import { UpstreamError } from '../../errors.js';
import { base64url, hmacSha256 } from '../shared/crypto.js';
import { TokenCache } from '../shared/token-cache.js';

/** How long a signed token is valid (NA signs for 24 h), and how early a new one is signed. */
export const zhipuTokenLifetimeMs = 24 * 60 * 60 * 1000;
const refreshMarginMs = 60 * 60 * 1000;

/** The key `id.secret` split at its first dot; null when either part is missing. */
export function splitZhipuKey(key: string): { id: string; secret: string } | null {
  const dot = key.trim().indexOf('.');
  if (dot <= 0) return null;
  const id = key.trim().slice(0, dot);
  const secret = key.trim().slice(dot + 1);
  return secret ? { id, secret } : null;
}

/**
 * Zhipu's HS256 JWT: header `{alg:'HS256', sign_type:'SIGN'}`, claims `{api_key, exp, timestamp}`
 * in milliseconds (not the seconds of RFC 7519), signed with the key's secret.
 */
export function createZhipuJwt(id: string, secret: string, nowMs: number, lifetimeMs = zhipuTokenLifetimeMs): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN' }));
  const claims = base64url(JSON.stringify({ api_key: id, exp: nowMs + lifetimeMs, timestamp: nowMs }));
  const signingInput = `${header}.${claims}`;
  return `${signingInput}.${base64url(hmacSha256(secret, signingInput))}`;
}

/** Signed tokens per key, reused until an hour before they expire (shared/token-cache.ts). */
export class ZhipuTokenCache {
  private readonly cache: TokenCache<{ id: string; secret: string }>;

  constructor(now: () => number = Date.now) {
    this.cache = new TokenCache(
      async ({ id, secret }, nowMs) => ({ token: createZhipuJwt(id, secret, nowMs), expiresAtMs: nowMs + zhipuTokenLifetimeMs }),
      refreshMarginMs,
      now,
    );
  }

  /** The token for `id.secret`; a malformed key is the channel's fault (401, failover moves on). */
  getToken(key: string): Promise<string> {
    const parts = splitZhipuKey(key);
    if (!parts) return Promise.reject(new UpstreamError(401, '智谱 API Key 格式应为 id.secret', 'invalid_key_format', ''));
    return this.cache.get(key.trim(), parts);
  }

  clear(): void {
    this.cache.clear();
  }
}

/** The process-wide cache the Zhipu adapter uses. */
export const zhipuTokenCache = new ZhipuTokenCache();
