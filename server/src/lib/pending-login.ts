import { hmacSha256, safeEqual } from './crypto.js';

export const pendingLoginCookieName = 'login_pending';
/** How long a user has between the first step (password, third party) and the second. */
export const pendingLoginMaxAgeSeconds = 300;

/** Who passed the first step of a sign-in, under which users.session_version. */
export interface PendingLoginClaims {
  userId: number;
  version: number;
}

// A domain of its own for the HMAC: a session cookie (same shape) is never a pending login, nor the reverse.
const macOf = (secret: string, payload: string) => hmacSha256(secret, `login-pending:${payload}`);

/**
 * The signed state between the two steps of a sign-in: `<userId>.<sessionVersion>.<expiresAt>.<hmac>`,
 * five minutes. It is not a session: no guard reads it, only the second-step routes. It is spent when
 * the session_version moves (a factor or the password changed, the user was disabled).
 */
export function signPendingLogin(secret: string, userId: number, sessionVersion: number, now = Date.now()): string {
  const payload = `${userId}.${sessionVersion}.${Math.floor(now / 1000) + pendingLoginMaxAgeSeconds}`;
  return `${payload}.${macOf(secret, payload)}`;
}

export function readPendingLogin(secret: string, cookie: string | undefined, now = Date.now()): PendingLoginClaims | null {
  if (!cookie || cookie.length > 200) return null;
  const parts = cookie.split('.');
  if (parts.length !== 4) return null;
  const [id, version, expiresAt, mac] = parts as [string, string, string, string];
  if (!safeEqual(mac, macOf(secret, `${id}.${version}.${expiresAt}`))) return null;
  if (!/^\d{1,10}$/.test(id) || !/^\d{1,10}$/.test(version) || !/^\d{1,12}$/.test(expiresAt)) return null;
  if (Number(expiresAt) * 1000 < now) return null;
  return { userId: Number(id), version: Number(version) };
}
