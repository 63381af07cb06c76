import { walletMessages, type TopUpPayInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { randomKey } from '../../lib/crypto.js';
import { forbidden, invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { epaySettingsOf, epaySign, epayTypeOf } from './epay.js';
import { assertMinTopUp, moneyText, topUpPriceOf } from './top-up-price.js';

export interface EpayForm {
  /** Where the console posts the hidden form. */
  url: string;
  data: Record<string, string>;
}

export const noServerAddressMessage = '管理员未设置服务器地址，无法发起在线充值';

/**
 * POST /api/user/pay: records a pending top_ups row under a fresh trade number and returns the
 * signed form the console submits to the Epay-compatible gateway. Its return and notify URLs are
 * built on ServerAddress (CustomCallbackAddress for notify): refused while it is unset.
 */
export async function createTopUpOrder(ctx: AppContext, user: AuthUser, input: TopUpPayInput): Promise<EpayForm> {
  const epay = epaySettingsOf(ctx.options);
  if (!epay) throw invalidInput(walletMessages.onlineTopUpOff);
  const { serverAddress, callbackAddress } = epay;
  if (serverAddress === null || callbackAddress === null) throw forbidden(noServerAddressMessage);
  assertMinTopUp(ctx.options, input.amount);
  const money = moneyText(topUpPriceOf(ctx.options, input.amount, user.group));
  if (Number(money) < 0.01) throw invalidInput('充值金额过低');
  const tradeNo = `USR${user.id}NO${randomKey(8)}${nowSeconds()}`;
  await insertReturningId(ctx.storage, 'top_ups', {
    user_id: user.id,
    amount: input.amount,
    money: Number(money),
    trade_no: tradeNo,
    payment_method: input.payment_method,
    create_time: nowSeconds(),
    status: 'pending',
  });
  const fields: Record<string, string> = {
    pid: epay.pid,
    type: epayTypeOf(input.payment_method),
    out_trade_no: tradeNo,
    notify_url: `${callbackAddress}/api/user/epay/notify`,
    return_url: `${serverAddress}/log`,
    name: `TUC${input.amount}`,
    money,
  };
  return { url: `${epay.payAddress}/submit.php`, data: { ...fields, sign: epaySign(fields, epay.key), sign_type: 'MD5' } };
}
