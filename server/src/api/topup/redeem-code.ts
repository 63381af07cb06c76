import { LogType, RedemptionStatus, walletMessages } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import { invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { formatQuota } from '../users/format-quota.js';

/** Why a code could not be claimed, read after the conditional UPDATE matched nothing. */
async function refusalFor(ctx: AppContext, key: string, now: number): Promise<string> {
  const code = await ctx.storage.db
    .selectFrom('redemptions')
    .select(['status', 'expired_time'])
    .where('key', '=', key)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!code) return walletMessages.keyInvalid;
  if (code.status === RedemptionStatus.used) return walletMessages.keyUsed;
  if (code.status === RedemptionStatus.disabled) return walletMessages.keyDisabled;
  if (code.expired_time !== 0 && code.expired_time <= now) return walletMessages.keyExpired;
  return walletMessages.keyUsed;
}

/**
 * POST /api/user/topup: claims the code and credits the caller once. The claim is a conditional
 * UPDATE (status 1 → 3); only the transaction whose UPDATE changed the row credits the quota and
 * writes the top-up log, so concurrent redemptions of one code credit exactly once.
 */
export async function redeemCode(ctx: AppContext, user: AuthUser, key: string): Promise<number> {
  const now = nowSeconds();
  const claimed = await ctx.storage.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('redemptions')
      .set({ status: RedemptionStatus.used, used_user_id: user.id, redeemed_time: now })
      .where('key', '=', key)
      .where('status', '=', RedemptionStatus.unused)
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('expired_time', '=', 0), eb('expired_time', '>', now)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return null;
    const code = await trx
      .selectFrom('redemptions')
      .select(['id', 'quota'])
      .where('key', '=', key)
      .where('used_user_id', '=', user.id)
      .where('redeemed_time', '=', now)
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', code.quota) }))
      .where('id', '=', user.id)
      .execute();
    await trx
      .insertInto('logs')
      .values({
        user_id: user.id,
        username: user.username,
        created_at: now,
        type: LogType.topup,
        quota: code.quota,
        content: `通过兑换码充值 ${formatQuota(ctx.options, code.quota)}，兑换码ID ${code.id}`,
      })
      .execute();
    return code;
  });
  if (!claimed) throw invalidInput(await refusalFor(ctx, key, now));
  await ctx.bus.publish('users', String(user.id));
  return claimed.quota;
}
