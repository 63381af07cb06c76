import { request, type Dispatcher } from 'undici';
import { UpstreamError } from '../../errors.js';
import { sha256Hex } from '../shared/crypto.js';
import { TokenCache, type IssuedToken } from '../shared/token-cache.js';
import { parseBaiduError } from './errors.js';

/** Refresh an hour before expiry (tokens usually live 30 days). */
const refreshMarginMs = 60 * 60 * 1000;
/** When the answer has no usable `expires_in`: one day. */
const defaultLifetimeS = 24 * 60 * 60;
const maxLifetimeS = 30 * 24 * 60 * 60;

export interface BaiduCredential {
  /** The token host: the channel base URL. */
  base: string;
  apiKey: string;
  secretKey: string;
  dispatcher: Dispatcher;
}

/** `POST {base}/oauth/2.0/token?grant_type=client_credentials&client_id=…&client_secret=…` → `{access_token, expires_in}`. */
async function issueAccessToken(credential: BaiduCredential, nowMs: number): Promise<IssuedToken> {
  const query = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: credential.apiKey,
    client_secret: credential.secretKey,
  });
  let response;
  try {
    response = await request(`${credential.base}/oauth/2.0/token?${query.toString()}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      dispatcher: credential.dispatcher,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
  } catch (error) {
    throw new UpstreamError(0, `百度获取 access_token 失败：${(error as Error).message}`, null, '');
  }
  const text = await response.body.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // reported below
  }
  if (response.statusCode !== 200 || typeof json.access_token !== 'string' || !json.access_token) {
    const { message, code } = parseBaiduError(response.statusCode, text);
    // A rejected API key / secret is the channel key's fault: 401, so failover moves on and auto-disable sees it.
    const status = response.statusCode >= 500 ? response.statusCode : 401;
    throw new UpstreamError(status, `百度获取 access_token 失败：${message}`, code, text);
  }
  const expiresIn = typeof json.expires_in === 'number' && json.expires_in > 0 ? Math.min(json.expires_in, maxLifetimeS) : defaultLifetimeS;
  return { token: json.access_token, expiresAtMs: nowMs + expiresIn * 1000 };
}

/** Access tokens per API key (and token host), shared by concurrent callers (shared/token-cache.ts). */
export class BaiduTokenCache {
  private readonly cache: TokenCache<BaiduCredential>;

  constructor(now: () => number = Date.now) {
    this.cache = new TokenCache(issueAccessToken, refreshMarginMs, now);
  }

  /** The cache key: a hash, so the secret is not kept as a map key. */
  private keyOf(credential: BaiduCredential): string {
    return sha256Hex(`${credential.base}\n${credential.apiKey}\n${credential.secretKey}`);
  }

  getAccessToken(credential: BaiduCredential): Promise<string> {
    return this.cache.get(this.keyOf(credential), credential);
  }

  /** Forgets every token: Baidu said one is invalid or expired (110/111), and the answer does not say whose. */
  forgetAll(): void {
    this.cache.clear();
  }

  clear(): void {
    this.cache.clear();
  }
}

/** The process-wide cache the Baidu adapter uses. */
export const baiduTokenCache = new BaiduTokenCache();
