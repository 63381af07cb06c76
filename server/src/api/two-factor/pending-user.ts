import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { invalidInput } from '../../lib/errors.js';
import { pendingLoginCookieName, readPendingLogin } from '../../lib/pending-login.js';
import { UserStatus } from '../auth/roles.js';
import { setSessionCookie } from '../users/session-cookie.js';
import { sessionUserColumns } from '../users/user-views.js';
import { clearPendingLoginCookie, signedInMessage } from './first-step.js';
import { noteSignIn } from '../audit/sign-in-audit.js';

export const pendingExpiredMessage = '会话已过期，请重新登录';

/**
 * The user a pending sign-in names: the cookie must be valid and unexpired, and the user still
 * enabled, not deleted and under the session_version the first step saw (a password or factor
 * change in between ends it). A 400, not a 401: the login form shows it and starts over.
 */
export async function pendingUserOf(ctx: AppContext, request: FastifyRequest) {
  const claims = readPendingLogin(ctx.config.sessionSecret, request.cookies?.[pendingLoginCookieName]);
  if (!claims) throw invalidInput(pendingExpiredMessage);
  const row = await ctx.storage.db
    .selectFrom('users')
    .select([...sessionUserColumns, 'deleted_at', 'session_version'])
    .where('id', '=', claims.userId)
    .executeTakeFirst();
  if (!row || row.deleted_at !== null || row.status !== UserStatus.enabled || row.session_version !== claims.version) {
    throw invalidInput(pendingExpiredMessage);
  }
  const { deleted_at: _deleted, session_version: sessionVersion, ...user } = row;
  return { user, sessionVersion };
}

export type PendingUser = Awaited<ReturnType<typeof pendingUserOf>>;

/** The second step passed: the pending state is dropped and the session starts. */
export function startSessionAfterSecondStep(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, pending: PendingUser) {
  clearPendingLoginCookie(request, reply);
  noteSignIn(request, pending.user, 'sign_in');
  setSessionCookie(request, reply, ctx.config.sessionSecret, pending.user.id, pending.sessionVersion);
  return { data: pending.user, message: signedInMessage };
}
