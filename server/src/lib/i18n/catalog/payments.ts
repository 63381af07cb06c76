import type { CatalogEntry } from './index.js';

/** Card payments (Stripe), subscription plans and subscriptions, and the funding preference. */
export const paymentTexts: readonly CatalogEntry[] = [
  // Stripe
  ['管理员未开启银行卡支付', 'Card payments are not enabled by the administrator'],
  ['管理员未设置服务器地址，无法发起银行卡支付', 'The administrator has not set the server address, so card payments cannot be started'],
  ['银行卡支付暂时不可用，请稍后再试', 'Card payments are unavailable for the moment, please try again later'],
  [
    '支付平台拒绝了该订单，请检查金额或联系管理员',
    'The payment platform refused this order; check the amount or contact the administrator',
  ],
  ['缺少 Stripe-Signature 签名', 'The Stripe-Signature header is missing'],
  ['Stripe 签名无效或已过期', 'The Stripe signature is invalid or expired'],
  ['Stripe 事件缺少数据对象', 'The Stripe event has no data object'],
  ['未知的 Stripe 支付会话', 'Unknown Stripe checkout session'],
  ['Stripe 支付会话与订单不符', 'The Stripe checkout session does not match the order'],
  ['Stripe 支付会话缺少订阅', 'The Stripe checkout session has no subscription'],
  ['Stripe 订阅缺少计费周期', 'The Stripe subscription has no billing period'],
  ['必须是三个小写字母的货币代码，如 usd', 'must be a three-letter lowercase currency code, such as usd'],
  // Plans
  ['套餐名称长度必须在 1 到 {0} 个字符之间', 'The plan name must be 1 to {0} characters long'],
  ['价格必须是不小于 0 的数字', 'The price must be a number of at least 0'],
  ['周期单位必须是 day、week、month 或 year', 'The period unit must be day, week, month or year'],
  ['周期数必须是 1 到 365 之间的整数', 'The period count must be an integer from 1 to 365'],
  ['每周期额度必须是大于 0 的整数', 'The quota per period must be an integer greater than 0'],
  ['模型和分组必须是字符串列表', 'Models and groups must be lists of strings'],
  ['周期不能超过一年', 'A period cannot be longer than a year'],
  ['套餐不存在', 'The plan does not exist'],
  ['该套餐未启用', 'This plan is not enabled'],
  ['该套餐价格为 0，只能由管理员授予', 'This plan costs 0 and can only be granted by an administrator'],
  ['套餐已被购买或授予，只能停用', 'This plan has been bought or granted; it can only be disabled'],
  ['套餐已保存', 'Plan saved'],
  // Subscriptions
  ['你已有自动续费的订阅，请先取消', 'You already have a renewing subscription; cancel it first'],
  ['你有一笔订阅购买正在进行中，请稍后再试', 'A subscription purchase of yours is in progress. Please try again shortly'],
  ['你的上一笔订阅已付款，正在开通，请稍后刷新', 'Your previous subscription purchase is paid and being activated. Refresh shortly'],
  ['订阅不存在', 'The subscription does not exist'],
  ['该订阅不会续费，无需取消', 'This subscription does not renew; there is nothing to cancel'],
  ['授予周期数必须是 1 到 120 之间的整数', 'The number of periods granted must be an integer from 1 to 120'],
  ['订阅已授予', 'Subscription granted'],
  ['订阅已终止', 'Subscription ended'],
  ['订阅已取消，将在当前周期结束时停止', 'Subscription cancelled; it stops at the end of the current period'],
  [
    '扣费优先级必须是 subscription_first、wallet_first、wallet_only 或 subscription_only',
    'The funding preference must be subscription_first, wallet_first, wallet_only or subscription_only',
  ],
  ['扣费优先级已保存', 'Funding preference saved'],
  // System log of a purchase
  ['订阅 {0} 购买成功，支付金额：{1} {2}，订单号 {3}', 'Subscription {0} bought, paid {1} {2}, order {3}'],
];
