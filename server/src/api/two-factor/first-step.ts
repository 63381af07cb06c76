import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { pendingLoginCookieName, pendingLoginMaxAgeSeconds, signPendingLogin } from '../../lib/pending-login.js';
import { isAdminRole } from '../auth/roles.js';
import { hasAnyFactor, secondFactorsOf } from '../../lib/second-factors.js';
import { setSessionCookie } from '../users/session-cookie.js';
import { noteSignIn } from '../audit/sign-in-audit.js';

export const secondStepMessage = '请输入两步验证码';
export const signedInMessage = '登录成功！';

const pendingCookieOptions = (request: FastifyRequest) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  // Only the second-step routes (/api/user/login/2fa...) ever receive it.
  path: '/api/user/login',
  secure: request.protocol === 'https',
});

export function clearPendingLoginCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(pendingLoginCookieName, pendingCookieOptions(request));
}

/**
 * The end of a sign-in's first step (password, third-party account). A user with a second factor
 * gets no session yet: a five-minute signed pending-login cookie and `{require_2fa: true}` with the
 * factors they may use; the session cookie comes with the second step. Anyone else is signed in;
 * an admin who must still enrol (`TwoFactorRequiredForAdmins`) is told so with `require_2fa_setup`.
 */
export async function completeFirstStep<U extends { id: number; role: number; username: string }>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: U,
  sessionVersion: number,
): Promise<{ data: U | { require_2fa: true; totp: boolean; passkey: boolean }; message: string }> {
  const factors = await secondFactorsOf(ctx, user.id);
  // The audit trail records an admin's sign-in (password or third party) from here: one place for both.
  if (hasAnyFactor(factors)) {
    noteSignIn(request, user, 'sign_in_first_step');
    reply.setCookie(pendingLoginCookieName, signPendingLogin(ctx.config.sessionSecret, user.id, sessionVersion), {
      ...pendingCookieOptions(request),
      maxAge: pendingLoginMaxAgeSeconds,
    });
    return { data: { require_2fa: true, ...factors }, message: secondStepMessage };
  }
  noteSignIn(request, user, 'sign_in');
  setSessionCookie(request, reply, ctx.config.sessionSecret, user.id, sessionVersion);
  const mustEnrol = isAdminRole(user.role) && ctx.options.bool('TwoFactorRequiredForAdmins');
  return { data: mustEnrol ? { ...user, require_2fa_setup: true } : user, message: signedInMessage };
}
