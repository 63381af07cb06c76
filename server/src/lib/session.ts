import { hmacSha256, safeEqual } from './crypto.js';

export const sessionCookieName = 'session';
export const sessionMaxAgeSeconds = 30 * 24 * 3600;

/** What a valid session cookie says: whose it is and the users.session_version it was issued under. */
export interface SessionClaims {
  userId: number;
  version: number;
}

/**
 * A signed session: `<userId>.<sessionVersion>.<expiresAt>.<hmac>`. It is valid while unexpired
 * and while the user row still has that session_version (checked with the user row that every
 * request re-reads); bumping the version (revokeSessions) ends every session of the user.
 */
export function signSession(secret: string, userId: number, sessionVersion: number, now = Date.now()): string {
  const expiresAt = Math.floor(now / 1000) + sessionMaxAgeSeconds;
  const payload = `${userId}.${sessionVersion}.${expiresAt}`;
  return `${payload}.${hmacSha256(secret, payload)}`;
}

export function readSession(secret: string, cookie: string | undefined, now = Date.now()): SessionClaims | null {
  if (!cookie || cookie.length > 200) return null;
  const parts = cookie.split('.');
  if (parts.length !== 4) return null;
  const [id, version, expiresAt, mac] = parts as [string, string, string, string];
  if (!safeEqual(mac, hmacSha256(secret, `${id}.${version}.${expiresAt}`))) return null;
  if (!/^\d{1,10}$/.test(id) || !/^\d{1,10}$/.test(version) || !/^\d{1,12}$/.test(expiresAt)) return null;
  if (Number(expiresAt) * 1000 < now) return null;
  return { userId: Number(id), version: Number(version) };
}
