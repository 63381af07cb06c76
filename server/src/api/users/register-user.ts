import type { RegisterInput } from '@modelgate/shared';
import { AppError, forbidden, invalidInput } from '../../lib/errors.js';
import { assertEmailAllowed, emailMessages, normalizeEmail } from '../../mail/email-rules.js';
import { OneTimeCodes } from '../../mail/one-time-codes.js';
import type { AppContext } from '../../context.js';
import { insertInvitedUser } from './insert-invited-user.js';
import { hashPassword } from './passwords.js';
import { isUniqueViolation, usernameTakenMessage } from './user-views.js';

export const registrationClosedMessage = '管理员关闭了新用户注册';
export const passwordRegistrationClosedMessage = '管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册';
export const wrongVerificationCodeMessage = '验证码错误或已过期';

/** Creates a regular user with a password; invite rewards as insertInvitedUser gives them. */
export async function registerUser(ctx: AppContext, input: RegisterInput): Promise<{ id: number }> {
  const { options, storage } = ctx;
  if (!options.bool('RegisterEnabled')) throw forbidden(registrationClosedMessage);
  if (!options.bool('PasswordRegisterEnabled')) throw forbidden(passwordRegistrationClosedMessage);
  let email = input.email;
  if (options.bool('EmailVerificationEnabled')) {
    if (input.email === '') throw invalidInput('请输入邮箱！');
    if (input.verification_code === '') throw invalidInput('请输入邮箱验证码！');
    email = normalizeEmail(input.email);
    assertEmailAllowed(options, email);
    if (!(await new OneTimeCodes(ctx.cache).consume('verify', email, input.verification_code.trim())))
      throw invalidInput(wrongVerificationCodeMessage);
  }
  if (email !== '' && (await storage.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst())) {
    throw new AppError('conflict', emailMessages.taken);
  }
  const taken = await storage.db.selectFrom('users').select('id').where('username', '=', input.username).executeTakeFirst();
  if (taken) throw new AppError('conflict', usernameTakenMessage);
  const password = await hashPassword(input.password);
  let id: number;
  try {
    id = await insertInvitedUser(
      ctx,
      {
        username: input.username,
        password,
        display_name: input.username,
        email,
      },
      input.aff_code,
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', usernameTakenMessage);
    throw error;
  }
  return { id };
}
