import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { isAdminRole } from '../auth/roles.js';
import type { SignInAttempt } from './audit-trail.js';

/**
 * Marks a sign-in of an admin or the root for the audit trail, which writes it with the answer's
 * status (audit-trail.ts). A later mark replaces an earlier one: the second step marks a failure
 * first and a success once the code is right. Common users' sign-ins are not recorded.
 */
export function noteSignIn(request: FastifyRequest, user: SignInAttempt['user'], action: SignInAttempt['action']): void {
  if (isAdminRole(user.role)) request.auditSignIn = { user: { id: user.id, username: user.username, role: user.role }, action };
}

/**
 * A refused password sign-in: recorded when the name given is an admin's or the root's (as
 * username, or as email the way loginUser reads it). Unknown names are not recorded, so the trail
 * cannot be filled with guesses.
 */
export async function noteFailedSignIn(ctx: AppContext, request: FastifyRequest, username: string): Promise<void> {
  const column = username.includes('@') ? 'email' : 'username';
  const user = await ctx.storage.db
    .selectFrom('users')
    .select(['id', 'username', 'role'])
    .where((eb) => eb.or([eb('username', '=', username), eb(column, '=', username)]))
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  if (user) noteSignIn(request, user, 'sign_in_failed');
}
