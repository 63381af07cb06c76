import { invalidInput } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { formatQuota } from './format-quota.js';

export const affQuotaInsufficientMessage = '邀请额度不足！';

/** Moves invite earnings into the usable balance in one conditional UPDATE. */
export async function transferAffQuota(ctx: AppContext, userId: number, quota: number): Promise<void> {
  const minimum = ctx.options.number('QuotaPerUnit');
  if (quota < minimum) throw invalidInput(`划转金额最低为${formatQuota(ctx.options, minimum)}`);
  const result = await ctx.storage.db
    .updateTable('users')
    .set((eb) => ({ aff_quota: eb('aff_quota', '-', quota), quota: eb('quota', '+', quota) }))
    .where('id', '=', userId)
    .where('aff_quota', '>=', quota)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw invalidInput(affQuotaInsufficientMessage);
  await ctx.bus.publish('users', String(userId));
}
