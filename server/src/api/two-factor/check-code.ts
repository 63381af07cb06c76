import type { AppContext } from '../../context.js';
import { invalidInput } from '../../lib/errors.js';
import { nowSeconds } from '../../db/index.js';
import { recoveryCodeOf, spendRecoveryCode } from './recovery-codes.js';
import { matchTotpStep, totpCodeOf } from './totp.js';

export const wrongCodeMessage = '验证码或备用码错误，请重试';
export const notEnabledMessage = '用户未启用两步验证';

export type CodeKind = 'totp' | 'recovery';

/**
 * Accepts a step's code once: the step is recorded only while it is later than the last accepted
 * one (one UPDATE, atomic on every database and across instances), so a code seen over a
 * shoulder or replayed from a log is refused, even within its 30 seconds.
 */
async function acceptTotpStep(ctx: AppContext, userId: number, step: number): Promise<boolean> {
  const result = await ctx.storage.db
    .updateTable('two_fas')
    .set({ last_used_step: step, updated_at: nowSeconds() })
    .where('user_id', '=', userId)
    .where('last_used_step', '<', step)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Checks a second-factor code of a user with TOTP enabled: a current TOTP code (not used before)
 * or, when `allowRecovery`, an unused recovery code (spent here). Throws 400 on anything else.
 */
export async function checkSecondFactorCode(ctx: AppContext, userId: number, input: string, allowRecovery: boolean): Promise<CodeKind> {
  const row = await ctx.storage.db.selectFrom('two_fas').select('secret').where('user_id', '=', userId).executeTakeFirst();
  if (!row) throw invalidInput(notEnabledMessage);
  const totp = totpCodeOf(input);
  if (totp !== null) {
    const step = await matchTotpStep(row.secret, totp);
    if (step !== null && (await acceptTotpStep(ctx, userId, step))) return 'totp';
    throw invalidInput(wrongCodeMessage);
  }
  const recovery = allowRecovery ? recoveryCodeOf(input) : null;
  if (recovery !== null && (await spendRecoveryCode(ctx.storage.db, userId, recovery))) return 'recovery';
  throw invalidInput(wrongCodeMessage);
}
