import { forbidden, notFound } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { viewHigherRoleMessage } from './user-permissions.js';
import { adminUserColumns, toAdminView, userNotFoundMessage } from './user-views.js';

/**
 * One user for the admin editor: only users of a lower role, or the admin themself. With the
 * second factors the editor can reset: whether TOTP is on and how many passkeys there are.
 */
export async function getUser(ctx: AppContext, me: AuthUser, id: number) {
  const { db } = ctx.storage;
  const user = await db.selectFrom('users').select(adminUserColumns).where('id', '=', id).executeTakeFirst();
  if (!user) throw notFound(userNotFoundMessage);
  if (user.id !== me.id && user.role >= me.role) throw forbidden(viewHigherRoleMessage);
  const [totp, passkeys] = await Promise.all([
    db.selectFrom('two_fas').select('id').where('user_id', '=', id).executeTakeFirst(),
    db
      .selectFrom('passkey_credentials')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', id)
      .executeTakeFirstOrThrow(),
  ]);
  const factors = { two_fa_enabled: totp !== undefined, passkey_count: Number(passkeys.count) };
  return { ...(user.id === me.id ? user : toAdminView(user)), ...factors };
}
