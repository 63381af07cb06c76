import type { EpayNotifyReply } from '@modelgate/shared';
import type { AppContext } from '../../context.js';
import { creditTopUp } from './credit-top-up.js';
import { epaySettingsOf, isEpaySignValid } from './epay.js';
import { moneyText } from './top-up-price.js';

/** What the gateway reads: 'success' stops its retries, 'fail' makes it try again later. */
export type EpayReply = EpayNotifyReply;

/**
 * GET /api/user/epay/notify: checks the MD5 signature with EpayKey; on TRADE_SUCCESS moves the
 * order from pending to success and credits amount × QuotaPerUnit (creditTopUp: once, however
 * often and concurrently the gateway calls back).
 */
export async function completeEpayOrder(ctx: AppContext, fields: Record<string, string>): Promise<EpayReply> {
  const epay = epaySettingsOf(ctx.options);
  if (!epay || !isEpaySignValid(fields, epay.key) || fields.pid !== epay.pid) return 'fail';
  const tradeNo = fields.out_trade_no ?? '';
  const order = await ctx.storage.db
    .selectFrom('top_ups')
    .select(['id', 'user_id', 'amount', 'money', 'status', 'trade_no', 'payment_method'])
    .where('trade_no', '=', tradeNo)
    .executeTakeFirst();
  if (!order || order.payment_method === 'stripe') return 'fail';
  if (fields.trade_status !== 'TRADE_SUCCESS') return 'success';
  if (fields.money !== undefined && moneyText(Number(fields.money)) !== moneyText(order.money)) return 'fail';
  await creditTopUp(ctx, order);
  return 'success';
}
