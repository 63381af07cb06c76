import type { CreateUserInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { AppError, forbidden } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { hashPassword } from './passwords.js';
import { logSignUpRewards } from './reward-logs.js';
import { isUniqueViolation, usernameTakenMessage } from './user-views.js';

export const roleTooHighMessage = '无法创建权限大于等于自己的用户';

/** An admin adds an account of a lower role; it starts with QuotaForNewUser (and its system log) like a registration. */
export async function createUser(ctx: AppContext, me: AuthUser, input: CreateUserInput): Promise<{ id: number }> {
  if (input.role >= me.role) throw forbidden(roleTooHighMessage);
  const password = await hashPassword(input.password);
  const quota = ctx.options.number('QuotaForNewUser');
  try {
    const id = await ctx.storage.db.transaction().execute(async (trx) => {
      const now = nowSeconds();
      const newId = await insertReturningId({ ...ctx.storage, db: trx }, 'users', {
        username: input.username,
        password,
        display_name: input.display_name || input.username,
        role: input.role,
        quota,
        created_time: now,
      });
      await logSignUpRewards(trx, ctx.options, { newUser: { userId: newId, username: input.username, quota } }, now);
      return newId;
    });
    return { id };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', usernameTakenMessage);
    throw error;
  }
}
