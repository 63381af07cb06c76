import type { CatalogEntry } from './index.js';

/**
 * Texts stored as data and translated when read: usage and system log details (logs.content,
 * written in Chinese) and the default group descriptions (the UserUsableGroups option).
 */
export const recordTexts: readonly CatalogEntry[] = [
  // logs.content of consumption, written by settle (HTTP relay) and settle-session (Realtime)
  ['模型价格 {0}，分组倍率 {1}', 'Model price {0}, group ratio {1}'],
  ['模型倍率 {0}，补全倍率 {1}，分组倍率 {2}', 'Model ratio {0}, completion ratio {1}, group ratio {2}'],
  ['模型倍率 {0}，补全倍率 {1}，音频倍率 {2}，分组倍率 {3}', 'Model ratio {0}, completion ratio {1}, audio ratio {2}, group ratio {3}'],
  [
    '模型倍率 {0}，补全倍率 {1}，图片输入倍率 {2}，分组倍率 {3}',
    'Model ratio {0}, completion ratio {1}, image input ratio {2}, group ratio {3}',
  ],
  [
    '模型倍率 {0}，补全倍率 {1}，音频倍率 {2}，音频补全倍率 {3}，分组倍率 {4}',
    'Model ratio {0}, completion ratio {1}, audio ratio {2}, audio completion ratio {3}, group ratio {4}',
  ],
  // Tasks (consumption and the refund log)
  ['{0} 任务 {1}（{2}）', '{0} task {1} ({2})'],
  ['{0} 任务 {1}（{2}）失败，退还额度：{3}', '{0} task {1} ({2}) failed, quota refunded: {3}'],
  // Top-up and management logs
  ['在线充值成功，充值额度: {0}，支付金额：{1}，订单号 {2}', 'Online top-up: {0} of quota, paid {1}, order {2}'],
  ['通过兑换码充值 {0}，兑换码ID {1}', 'Redeemed a code for {0}, code ID {1}'],
  ['管理员将用户额度从 {0} 修改为 {1}', 'An administrator changed the quota from {0} to {1}'],
  // System logs of sign-up rewards (api/users/reward-logs.ts)
  ['新用户注册赠送 {0}', 'New-user bonus: {0}'],
  ['使用邀请码赠送 {0}', 'Invite-code bonus: {0}'],
  ['邀请用户赠送 {0}', 'Reward for inviting a user: {0}'],
  // Group descriptions
  ['默认分组', 'Default group'],
  ['vip分组', 'VIP group'],
  ['用户分组', "The user's own group"],
  // The ratio of the auto group (new-api shows this word instead of a number)
  ['自动', 'auto'],
];
