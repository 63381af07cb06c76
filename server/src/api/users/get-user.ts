import { forbidden, notFound } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { viewHigherRoleMessage } from './user-permissions.js';
import { adminUserColumns, toAdminView, userNotFoundMessage } from './user-views.js';

/** One user for the admin editor: only users of a lower role, or the admin themself. */
export async function getUser(ctx: AppContext, me: AuthUser, id: number) {
  const user = await ctx.storage.db.selectFrom('users').select(adminUserColumns).where('id', '=', id).executeTakeFirst();
  if (!user) throw notFound(userNotFoundMessage);
  if (user.id !== me.id && user.role >= me.role) throw forbidden(viewHigherRoleMessage);
  return user.id === me.id ? user : toAdminView(user);
}
