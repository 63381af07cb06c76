import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionCookieName, sessionMaxAgeSeconds, signSession } from '../../lib/session.js';

/**
 * Starts a session: sets the 30-day session cookie (HttpOnly, SameSite=Strict, Secure over https)
 * for the user's current users.session_version, which the caller read with the user row.
 */
export function setSessionCookie(
  request: FastifyRequest, reply: FastifyReply, secret: string, userId: number, sessionVersion: number,
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
