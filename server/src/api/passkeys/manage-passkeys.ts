import type { AppContext } from '../../context.js';
import { invalidInput, notFound } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import { bumpSessionVersion } from '../auth/revoke-sessions.js';
import { assertCanManage } from '../users/user-permissions.js';
import { findManagedUser } from '../users/user-views.js';
import { noPasskeyMessage } from './sign-in-with-passkey.js';

export const passkeyNotFoundMessage = '未找到该 Passkey';
export const passkeyNameRequiredMessage = '请输入 Passkey 名称';

/** Renames one of the user's own passkeys (someone else's answers 404). Not a factor change: sessions stay. */
export async function renamePasskey(ctx: AppContext, userId: number, id: number, name: string): Promise<void> {
  if (name === '') throw invalidInput(passkeyNameRequiredMessage);
  const result = await ctx.storage.db
    .updateTable('passkey_credentials')
    .set({ name })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    const own = await ctx.storage.db
      .selectFrom('passkey_credentials')
      .select('id')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!own) throw notFound(passkeyNotFoundMessage);
  }
}

/** Removes one of the user's own passkeys and ends every session of the user; answers the new version. */
export async function removePasskey(ctx: AppContext, userId: number, id: number): Promise<number> {
  const sessionVersion = await ctx.storage.db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('passkey_credentials').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) throw notFound(passkeyNotFoundMessage);
    return bumpSessionVersion(trx, userId);
  });
  await ctx.bus.publish('users', String(userId));
  return sessionVersion;
}

/** An admin removes every passkey of a lower-role user (a lost device); the user's sessions end. */
export async function resetUserPasskeys(ctx: AppContext, me: AuthUser, userId: number): Promise<void> {
  assertCanManage(me, await findManagedUser(ctx.storage.db, userId));
  await ctx.storage.db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('passkey_credentials').where('user_id', '=', userId).executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) throw invalidInput(noPasskeyMessage);
    await bumpSessionVersion(trx, userId);
  });
  await ctx.bus.publish('users', String(userId));
}
