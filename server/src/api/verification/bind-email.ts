import { AppError, invalidInput } from '../../lib/errors.js';
import { assertEmailAllowed, emailMessages, normalizeEmail } from '../../mail/email-rules.js';
import type { OneTimeCodes } from '../../mail/one-time-codes.js';
import type { AppContext } from '../../context.js';
import { wrongVerificationCodeMessage } from '../users/register-user.js';

export const emailBoundMessage = '邮箱账户绑定成功！';

/**
 * GET /api/oauth/email/bind: binds a mailed-and-verified address to the signed-in user. An address
 * belongs to one user: the check and the write run in one transaction.
 */
export async function bindEmail(ctx: AppContext, codes: OneTimeCodes, userId: number, rawEmail: unknown, code: unknown): Promise<void> {
  const email = normalizeEmail(rawEmail);
  if (typeof code !== 'string' || code.trim() === '') throw invalidInput('请输入邮箱验证码！');
  assertEmailAllowed(ctx.options, email);
  if (!(await codes.consume('verify', email, code.trim()))) throw invalidInput(wrongVerificationCodeMessage);
  await ctx.storage.db.transaction().execute(async (trx) => {
    const owner = await trx.selectFrom('users').select('id').where('email', '=', email).where('id', '!=', userId).executeTakeFirst();
    if (owner) throw new AppError('conflict', emailMessages.taken);
    await trx.updateTable('users').set({ email }).where('id', '=', userId).execute();
  });
}
