import type { LoginInput } from '@modelgate/shared';
import { AppError, forbidden, invalidInput } from '../../lib/errors.js';
import { UserStatus } from '../auth/roles.js';
import type { AppContext } from '../../context.js';
import { isPasswordCorrect } from './passwords.js';
import { sessionUserColumns } from './user-views.js';

export const wrongCredentialsMessage = '用户名或密码错误，或用户已被封禁';

/**
 * Checks username-or-email and password. A wrong password is a 400 (a rejected form), not a 401:
 * the console sends 401s to /login?expired=true. Answers the user's console view and the
 * session_version a new session is signed with.
 */
export async function loginUser(ctx: AppContext, input: LoginInput) {
  if (!ctx.options.bool('PasswordLoginEnabled')) throw forbidden('管理员关闭了密码登录');
  const { db } = ctx.storage;
  const findBy = (column: 'username' | 'email') =>
    db
      .selectFrom('users')
      .select([...sessionUserColumns, 'password', 'session_version'])
      .where(column, '=', input.username)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
  // An exact username wins over an email address that happens to be spelled the same.
  const row = (await findBy('username')) ?? (input.username.includes('@') ? await findBy('email') : undefined);
  if (!(await isPasswordCorrect(input.password, row?.password)) || !row) throw invalidInput(wrongCredentialsMessage);
  if (row.status !== UserStatus.enabled) throw new AppError('forbidden', '用户已被封禁');
  const { password: _password, session_version: sessionVersion, ...user } = row;
  return { user, sessionVersion };
}
