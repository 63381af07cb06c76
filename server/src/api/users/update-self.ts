import type { UpdateSelfInput } from '@modelgate/shared';
import type { UserUpdate } from '../../db/schema.js';
import { AppError, invalidInput } from '../../lib/errors.js';
import { nextSessionVersion } from '../auth/revoke-sessions.js';
import type { AppContext } from '../../context.js';
import { hashPassword, isPasswordCorrect } from './passwords.js';
import { isUniqueViolation, usernameTakenMessage } from './user-views.js';

export const originalPasswordRequiredMessage = '请输入原密码';
export const originalPasswordWrongMessage = '原密码错误';

/**
 * Own username, display name and password; a password change needs the current one and ends
 * every session of the user. Answers the new session_version after a password change (the route
 * signs the current browser in again with it), else null.
 */
export async function updateSelf(ctx: AppContext, userId: number, input: UpdateSelfInput): Promise<number | null> {
  const { db } = ctx.storage;
  const changes: UserUpdate = {};
  if (input.username !== undefined) changes.username = input.username;
  if (input.display_name !== undefined) changes.display_name = input.display_name;
  if (input.password) {
    const current = await db.selectFrom('users').select('password').where('id', '=', userId).executeTakeFirstOrThrow();
    if (current.password !== '') {
      if (!input.original_password) throw invalidInput(originalPasswordRequiredMessage);
      if (!(await isPasswordCorrect(input.original_password, current.password))) throw invalidInput(originalPasswordWrongMessage);
    }
    changes.password = await hashPassword(input.password);
  }
  if (Object.keys(changes).length === 0) return null;
  const endsSessions = changes.password !== undefined;
  try {
    await db
      .updateTable('users')
      .set((eb) => (endsSessions ? { ...changes, session_version: nextSessionVersion(eb) } : changes))
      .where('id', '=', userId)
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', usernameTakenMessage);
    throw error;
  }
  await ctx.bus.publish('users', String(userId));
  if (!endsSessions) return null;
  const row = await db.selectFrom('users').select('session_version').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.session_version;
}
