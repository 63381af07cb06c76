import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionCookieName, sessionMaxAgeSeconds, signSession } from '../../lib/session.js';

/**
 * Starts a session: sets the 30-day session cookie (HttpOnly, SameSite=Strict, Secure over https)
 * for the user's current users.session_version, which the caller read with the user row.
 */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string,
  userId: number,
  sessionVersion: number,
): void {
  reply.setCookie(sessionCookieName, signSession(secret, userId, sessionVersion), {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: sessionMaxAgeSeconds,
    secure: request.protocol === 'https',
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName, { httpOnly: true, sameSite: 'strict', path: '/', secure: request.protocol === 'https' });
}

/**
 * After a change that ended every session of the user (a factor added or removed): the browser that
 * made it, when it came with a session cookie, stays signed in under the new version. A caller that
 * used an access token gets no cookie.
 */
export function renewSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string,
  userId: number,
  sessionVersion: number,
): void {
  if (request.cookies?.[sessionCookieName]) setSessionCookie(request, reply, secret, userId, sessionVersion);
}
