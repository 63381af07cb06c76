import { hmacSha256, safeEqual } from '../../lib/crypto.js';

export const sessionCookieName = 'session';
export const sessionMaxAgeSeconds = 30 * 24 * 3600;

/** A stateless session: `<userId>.<expiresAt>.<hmac>`; the user row is checked on every request. */
export function signSession(secret: string, userId: number, now = Date.now()): string {
  const expiresAt = Math.floor(now / 1000) + sessionMaxAgeSeconds;
  const payload = `${userId}.${expiresAt}`;
  return `${payload}.${hmacSha256(secret, payload)}`;
}

export function readSession(secret: string, cookie: string | undefined, now = Date.now()): number | null {
  if (!cookie || cookie.length > 200) return null;
  const parts = cookie.split('.');
  if (parts.length !== 3) return null;
  const [id, expiresAt, mac] = parts as [string, string, string];
  if (!safeEqual(mac, hmacSha256(secret, `${id}.${expiresAt}`))) return null;
  if (!/^\d+$/.test(id) || !/^\d+$/.test(expiresAt)) return null;
  if (Number(expiresAt) * 1000 < now) return null;
  return Number(id);
}
