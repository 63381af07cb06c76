import { LogType } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import type { AppContext } from '../../context.js';
import { formatQuota } from '../users/format-quota.js';
import { moneyText } from './top-up-price.js';

export interface PendingTopUp {
  id: number;
  user_id: number;
  amount: number;
  money: number;
  trade_no: string;
}

/**
 * Moves a paid order from pending to success and credits amount × QuotaPerUnit with its top-up log,
 * in one transaction. The status change is conditional, so repeated or concurrent notifications of
 * one order (from any gateway, on any instance) credit it once. Answers whether this call credited.
 */
export async function creditTopUp(ctx: AppContext, order: PendingTopUp): Promise<boolean> {
  const quota = Math.round(order.amount * ctx.options.number('QuotaPerUnit'));
  const now = nowSeconds();
  const isCredited = await ctx.storage.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('top_ups')
      .set({ status: 'success', complete_time: now })
      .where('id', '=', order.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', quota) }))
      .where('id', '=', order.user_id)
      .execute();
    const user = await trx.selectFrom('users').select('username').where('id', '=', order.user_id).executeTakeFirst();
    await trx
      .insertInto('logs')
      .values({
        user_id: order.user_id,
        username: user?.username ?? '',
        created_at: now,
        type: LogType.topup,
        quota,
        content: `在线充值成功，充值额度: ${formatQuota(ctx.options, quota)}，支付金额：${moneyText(order.money)}，订单号 ${order.trade_no}`,
      })
      .execute();
    return true;
  });
  if (isCredited) await ctx.bus.publish('users', String(order.user_id));
  return isCredited;
}
