import { createHmac } from 'node:crypto';
import type { UpstreamTarget } from '../types.js';

const trimSlash = (url: string) => url.trim().replace(/\/+$/, '');

/** The API root (a base URL given with `/v1` is the same root). */
export const klingBase = (baseURL: string): string => trimSlash(baseURL).replace(/\/v1$/, '');

/** The channel key `AccessKey|SecretKey`; null when either half is missing. */
export function klingCredentials(key: string): { accessKey: string; secretKey: string } | null {
  const [accessKey, secretKey, ...rest] = key.split('|').map((part) => part.trim());
  if (!accessKey || !secretKey || rest.length > 0) return null;
  return { accessKey, secretKey };
}

const base64Url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * Kling's bearer token: a JWT (HS256, signed with the secret key) issued by the access key, valid
 * for 30 minutes from 5 seconds ago (Kling's documented clock allowance). Signed per request: it
 * costs one HMAC, so nothing is cached.
 */
export function klingToken(accessKey: string, secretKey: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const header = base64Url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64Url(JSON.stringify({ iss: accessKey, exp: nowSeconds + 1800, nbf: nowSeconds - 5 }));
  const signature = createHmac('sha256', secretKey).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** The headers of every Kling API request; a key that is not `AccessKey|SecretKey` sends no credential (Kling answers 401). */
export function klingHeaders(target: UpstreamTarget): Record<string, string> {
  const credentials = klingCredentials(target.key);
  const headers: Record<string, string> = { ...target.headers, 'content-type': 'application/json' };
  if (credentials) headers.authorization = `Bearer ${klingToken(credentials.accessKey, credentials.secretKey)}`;
  return headers;
}
