import type { CreateUserInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { AppError, forbidden } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { hashPassword } from './passwords.js';
import { isUniqueViolation, usernameTakenMessage } from './user-views.js';

export const roleTooHighMessage = '无法创建权限大于等于自己的用户';

/** An admin adds an account of a lower role; it starts with QuotaForNewUser like a registration. */
export async function createUser(ctx: AppContext, me: AuthUser, input: CreateUserInput): Promise<{ id: number }> {
  if (input.role >= me.role) throw forbidden(roleTooHighMessage);
  try {
    const id = await insertReturningId(ctx.storage, 'users', {
      username: input.username,
      password: await hashPassword(input.password),
      display_name: input.display_name || input.username,
      role: input.role,
      quota: ctx.options.number('QuotaForNewUser'),
      created_time: nowSeconds(),
    });
    return { id };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', usernameTakenMessage);
    throw error;
  }
}
