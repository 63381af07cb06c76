import { LogType, type UpdateUserInput } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import type { UserUpdate } from '../../db/schema.js';
import { AppError, invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import { nextSessionVersion } from '../auth/revoke-sessions.js';
import type { AppContext } from '../../context.js';
import { formatQuota } from './format-quota.js';
import { hashPassword } from './passwords.js';
import { assertCanEdit } from './user-permissions.js';
import { findManagedUser, isUniqueViolation, usernameTakenMessage } from './user-views.js';

export const unknownGroupMessage = '分组不存在';

/**
 * The admin editor's save; a new password ends the user's sessions. A quota change is applied as a delta (quota = quota + (new - old)) so
 * spending that lands meanwhile is kept, and is written to the management log in the same
 * transaction.
 */
export async function updateUser(ctx: AppContext, me: AuthUser, input: UpdateUserInput): Promise<void> {
  const target = await findManagedUser(ctx.storage.db, input.id);
  assertCanEdit(me, target);
  if (input.group !== undefined && !Object.hasOwn(ctx.options.json<Record<string, number>>('GroupRatio'), input.group)) {
    throw invalidInput(unknownGroupMessage);
  }
  const changes: UserUpdate = {};
  if (input.username !== undefined) changes.username = input.username;
  if (input.display_name !== undefined) changes.display_name = input.display_name;
  if (input.group !== undefined) changes.group = input.group;
  if (input.email !== undefined) changes.email = input.email;
  if (input.remark !== undefined) changes.remark = input.remark;
  if (input.password) changes.password = await hashPassword(input.password);
  const quotaDelta = input.quota === undefined ? 0 : input.quota - target.quota;
  // An admin's password reset ends the user's sessions.
  const endsSessions = changes.password !== undefined;
  try {
    await ctx.storage.db.transaction().execute(async (trx) => {
      if (Object.keys(changes).length > 0 || quotaDelta !== 0) {
        await trx
          .updateTable('users')
          .set((eb) => ({
            ...changes,
            ...(quotaDelta === 0 ? {} : { quota: eb('quota', '+', quotaDelta) }),
            ...(endsSessions ? { session_version: nextSessionVersion(eb) } : {}),
          }))
          .where('id', '=', target.id)
          .execute();
      }
      if (quotaDelta !== 0) {
        const from = formatQuota(ctx.options, target.quota);
        const to = formatQuota(ctx.options, target.quota + quotaDelta);
        await trx
          .insertInto('logs')
          .values({
            user_id: target.id,
            username: changes.username ?? target.username,
            created_at: nowSeconds(),
            type: LogType.manage,
            content: `管理员将用户额度从 ${from} 修改为 ${to}`,
          })
          .execute();
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', usernameTakenMessage);
    throw error;
  }
  await ctx.bus.publish('users', String(target.id));
}
