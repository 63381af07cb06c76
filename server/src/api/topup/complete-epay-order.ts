import { LogType } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import type { AppContext } from '../../context.js';
import { formatQuota } from '../users/format-quota.js';
import { epaySettingsOf, isEpaySignValid } from './epay.js';
import { moneyText } from './top-up-price.js';

/** What the gateway reads: 'success' stops its retries, 'fail' makes it try again later. */
export type EpayReply = 'success' | 'fail';

/**
 * GET /api/user/epay/notify: checks the MD5 signature with EpayKey; on TRADE_SUCCESS moves the
 * order from pending to success and credits amount × QuotaPerUnit in one transaction. The status
 * change is conditional, so repeated or concurrent notifications credit the order once.
 */
export async function completeEpayOrder(ctx: AppContext, fields: Record<string, string>): Promise<EpayReply> {
  const epay = epaySettingsOf(ctx.options);
  if (!epay || !isEpaySignValid(fields, epay.key) || fields.pid !== epay.pid) return 'fail';
  const tradeNo = fields.out_trade_no ?? '';
  const order = await ctx.storage.db.selectFrom('top_ups').select(['id', 'user_id', 'amount', 'money', 'status'])
    .where('trade_no', '=', tradeNo).executeTakeFirst();
  if (!order) return 'fail';
  if (fields.trade_status !== 'TRADE_SUCCESS') return 'success';
  if (fields.money !== undefined && moneyText(Number(fields.money)) !== moneyText(order.money)) return 'fail';
  const quota = Math.round(order.amount * ctx.options.number('QuotaPerUnit'));
  const now = nowSeconds();
  const isCredited = await ctx.storage.db.transaction().execute(async (trx) => {
    const result = await trx.updateTable('top_ups').set({ status: 'success', complete_time: now })
      .where('id', '=', order.id).where('status', '=', 'pending').executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await trx.updateTable('users').set((eb) => ({ quota: eb('quota', '+', quota) })).where('id', '=', order.user_id).execute();
    const user = await trx.selectFrom('users').select('username').where('id', '=', order.user_id).executeTakeFirst();
    await trx.insertInto('logs').values({
      user_id: order.user_id,
      username: user?.username ?? '',
      created_at: now,
      type: LogType.topup,
      quota,
      content: `在线充值成功，充值额度: ${formatQuota(ctx.options, quota)}，支付金额：${moneyText(order.money)}，订单号 ${tradeNo}`,
    }).execute();
    return true;
  });
  if (isCredited) await ctx.bus.publish('users', String(order.user_id));
  return 'success';
}
