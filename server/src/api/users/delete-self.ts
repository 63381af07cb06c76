import { nowSeconds } from '../../db/index.js';
import { forbidden } from '../../lib/errors.js';
import { nextSessionVersion } from '../auth/revoke-sessions.js';
import { isRootRole } from '../auth/roles.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';

export const rootCannotBeDeletedMessage = '不能删除超级管理员账户';

/** Soft-deletes (cancels) the caller's own account; the super admin cannot leave. */
export async function deleteSelf(ctx: AppContext, me: AuthUser): Promise<void> {
  if (isRootRole(me.role)) throw forbidden(rootCannotBeDeletedMessage);
  await ctx.storage.db
    .updateTable('users')
    .set((eb) => ({ deleted_at: nowSeconds(), session_version: nextSessionVersion(eb) }))
    .where('id', '=', me.id)
    .where('deleted_at', 'is', null)
    .execute();
  await ctx.bus.publish('users', String(me.id));
}
