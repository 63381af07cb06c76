import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { UserRow } from '../../db/schema.js';
import { AppError, forbidden, unauthenticated } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { isAdminRole, isRootRole, UserStatus } from './roles.js';
import { readSession, sessionCookieName } from '../../lib/session.js';
import { mustEnrolSecondFactor, secondFactorRequiredMessage } from '../../lib/second-factors.js';

export type AuthUser = Pick<UserRow, 'id' | 'username' | 'role' | 'status' | 'group' | 'display_name'>;

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthUser | null;
  }
}

/** Reads `Authorization` as a user access token (raw or with a Bearer prefix). */
function accessTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization?.trim();
  if (!header) return null;
  const token = header.replace(/^Bearer\s+/i, '').trim();
  return token.length > 0 && token.length <= 128 ? token : null;
}

async function authenticate(ctx: AppContext, request: FastifyRequest): Promise<AuthUser> {
  const session = readSession(ctx.config.sessionSecret, request.cookies?.[sessionCookieName]);
  const query = ctx.storage.db
    .selectFrom('users')
    .select(['id', 'username', 'role', 'status', 'group', 'display_name', 'deleted_at', 'session_version']);
  let user;
  if (session !== null) {
    user = await query.where('id', '=', session.userId).executeTakeFirst();
    // A revoked session (logout, password change or reset, disable, delete) is signed out.
    if (user && user.session_version !== session.version) throw unauthenticated('未登录或登录已过期，请重新登录');
  } else {
    const token = accessTokenOf(request);
    if (!token) throw unauthenticated();
    user = await query.where('access_token', '=', token).executeTakeFirst();
    if (!user) throw unauthenticated('无权进行此操作，access token 无效');
  }
  if (!user || user.deleted_at !== null) throw unauthenticated('未登录或登录已过期，请重新登录');
  const headerId = request.headers['new-api-user'];
  if (headerId === undefined || headerId === '') throw unauthenticated('无权进行此操作，未提供 New-Api-User');
  if (String(headerId) !== String(user.id)) throw unauthenticated('无权进行此操作，New-Api-User 与登录用户不匹配');
  if (user.status !== UserStatus.enabled) throw new AppError('forbidden', '用户已被封禁');
  const { deleted_at: _deleted, session_version: _version, ...auth } = user;
  return auth;
}

/**
 * With `TwoFactorRequiredForAdmins` on, an admin without a second factor may use only the routes
 * guarded by `enrolling` (their own profile and the enrolment routes) until they enrol one.
 */
function guard(ctx: AppContext, allowed: (role: number) => boolean, isEnrolmentRoute = false): preHandlerAsyncHookHandler {
  return async function checkRole(request: FastifyRequest, _reply: FastifyReply) {
    const user = await authenticate(ctx, request);
    // Known before the role check: the audit trail records an admin's refused attempts too.
    request.auditActor = user;
    if (!allowed(user.role)) throw forbidden();
    if (!isEnrolmentRoute && (await mustEnrolSecondFactor(ctx, user, isAdminRole(user.role)))) throw forbidden(secondFactorRequiredMessage);
    request.auth = user;
  };
}

/** For public routes that answer a signed-in viewer differently: the user, or null (never an error). */
function optionalViewer(ctx: AppContext): preHandlerAsyncHookHandler {
  return async function readViewer(request: FastifyRequest, _reply: FastifyReply) {
    try {
      request.auth = await authenticate(ctx, request);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      request.auth = null;
    }
  };
}

/** preHandlers for the three access levels (and the optional viewer); each re-reads the user so bans apply at once. */
export function createGuards(ctx: AppContext) {
  return {
    user: guard(ctx, () => true),
    /** Any signed-in user, also an admin who must still enrol a second factor. */
    enrolling: guard(ctx, () => true, true),
    admin: guard(ctx, isAdminRole),
    root: guard(ctx, isRootRole),
    viewer: optionalViewer(ctx),
  };
}

export type Guards = ReturnType<typeof createGuards>;

/** The signed-in user of a guarded route. */
export function authOf(request: FastifyRequest): AuthUser {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}
