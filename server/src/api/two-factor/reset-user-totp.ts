import type { AppContext } from '../../context.js';
import type { AuthUser } from '../auth/guards.js';
import { assertCanManage } from '../users/user-permissions.js';
import { findManagedUser } from '../users/user-views.js';
import { removeTotp } from './manage-totp.js';

/**
 * An admin's reset of a user who lost their authenticator: TOTP and recovery codes go, and every
 * session of that user ends. Admins act only on users of a lower role (assertCanManage).
 */
export async function resetUserTotp(ctx: AppContext, me: AuthUser, userId: number): Promise<void> {
  assertCanManage(me, await findManagedUser(ctx.storage.db, userId));
  await removeTotp(ctx, userId);
}
