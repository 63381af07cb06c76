import type { RegisterInput } from '@modelgate/shared';
import { AppError, forbidden, invalidInput } from '../../lib/errors.js';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import type { AppContext } from '../context.js';
import { hashPassword } from './passwords.js';
import { isUniqueViolation, usernameTakenMessage } from './user-views.js';

export const registrationClosedMessage = '管理员关闭了新用户注册';
export const passwordRegistrationClosedMessage = '管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册';
export const wrongVerificationCodeMessage = '验证码错误或已过期';

/**
 * Creates a regular user. With an invite code the inviter earns QuotaForInviter (as invite
 * earnings) and the invitee QuotaForInvitee, in the same transaction as the insert.
 */
export async function registerUser(ctx: AppContext, input: RegisterInput): Promise<{ id: number }> {
  const { options, storage } = ctx;
  if (!options.bool('RegisterEnabled')) throw forbidden(registrationClosedMessage);
  if (!options.bool('PasswordRegisterEnabled')) throw forbidden(passwordRegistrationClosedMessage);
  if (options.bool('EmailVerificationEnabled')) {
    if (input.email === '') throw invalidInput('请输入邮箱！');
    if (input.verification_code === '') throw invalidInput('请输入邮箱验证码！');
    // No code is ever issued yet (mail sending is not built), so every code is wrong.
    throw invalidInput(wrongVerificationCodeMessage);
  }
  const taken = await storage.db.selectFrom('users').select('id').where('username', '=', input.username).executeTakeFirst();
  if (taken) throw new AppError('conflict', usernameTakenMessage);
  const inviter = input.aff_code === ''
    ? undefined
    : await storage.db.selectFrom('users').select('id')
      .where('aff_code', '=', input.aff_code).where('deleted_at', 'is', null).executeTakeFirst();
  const password = await hashPassword(input.password);
  const inviterReward = inviter ? options.number('QuotaForInviter') : 0;
  const inviteeReward = inviter ? options.number('QuotaForInvitee') : 0;
  let id: number;
  try {
    id = await storage.db.transaction().execute(async (trx) => {
      const newId = await insertReturningId({ ...storage, db: trx }, 'users', {
        username: input.username,
        password,
        display_name: input.username,
        email: input.email,
        quota: options.number('QuotaForNewUser') + inviteeReward,
        inviter_id: inviter?.id ?? 0,
        created_time: nowSeconds(),
      });
      if (inviter) {
        await trx.updateTable('users')
          .set((eb) => ({
            aff_count: eb('aff_count', '+', 1),
            aff_quota: eb('aff_quota', '+', inviterReward),
            aff_history_quota: eb('aff_history_quota', '+', inviterReward),
          }))
          .where('id', '=', inviter.id)
          .execute();
      }
      return newId;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', usernameTakenMessage);
    throw error;
  }
  if (inviter) await ctx.bus.publish('users', String(inviter.id));
  return { id };
}
