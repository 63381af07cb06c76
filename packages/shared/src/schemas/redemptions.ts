import { z } from 'zod';
import { idField } from './fields.js';

export const redemptionNameMaxLength = 20;
export const redemptionKeyLength = 32;
export const redemptionBatchMax = 100;
/** The redemption form starts at quota 100000, count 1. */
export const redemptionDefaults = { quota: 100000, count: 1 } as const;
/** Online top-up payment methods (the wallet page): zfb (Alipay) or wx (WeChat Pay). */
export const paymentMethods = ['zfb', 'wx'] as const;
export type PaymentMethod = (typeof paymentMethods)[number];

export const redemptionMessages = {
  nameTooLong: `兑换码名称长度必须在 1 到 ${redemptionNameMaxLength} 个字符之间`,
  quotaInvalid: '额度必须是大于 0 的整数',
  countInvalid: `兑换码个数必须是 1 到 ${redemptionBatchMax} 之间的整数`,
  expiredTimeInvalid: '过期时间格式错误！',
  expiredTimePast: '过期时间不能早于当前时间',
  notFound: '兑换码不存在',
  editOnlyUnused: '只有未使用的兑换码可以编辑',
  cannotEnableUsed: '已使用的兑换码无法启用',
  copyNeedsSelection: '请至少选择一个兑换码！',
  created: '兑换码创建成功',
  updated: '兑换码更新成功！',
} as const;

export const walletMessages = {
  keyRequired: '请输入兑换码！',
  keyInvalid: '无效的兑换码',
  keyUsed: '该兑换码已被使用',
  keyDisabled: '该兑换码已被禁用',
  keyExpired: '该兑换码已过期',
  redeemed: '兑换成功！',
  onlineTopUpOff: '管理员未开启在线充值！',
  topUpLinkMissing: '超级管理员未设置充值链接！',
  amountInvalid: '充值数量必须是正整数',
  amountBelowMinimum: (minimum: number) => `充值数量不能小于 ${minimum}`,
  paymentMethodInvalid: '支付方式必须是 zfb 或 wx',
} as const;

const name = z.string({ error: '兑换码名称必须是字符串' }).trim().max(redemptionNameMaxLength, { error: redemptionMessages.nameTooLong });
const quota = z
  .number({ error: redemptionMessages.quotaInvalid })
  .int({ error: redemptionMessages.quotaInvalid })
  .min(1, { error: redemptionMessages.quotaInvalid })
  .max(Number.MAX_SAFE_INTEGER, { error: redemptionMessages.quotaInvalid });
/** 0 means the code never expires; otherwise a unix time in seconds. */
const expiredTime = z
  .number({ error: redemptionMessages.expiredTimeInvalid })
  .int({ error: redemptionMessages.expiredTimeInvalid })
  .min(0, { error: redemptionMessages.expiredTimeInvalid })
  .max(Number.MAX_SAFE_INTEGER, { error: redemptionMessages.expiredTimeInvalid });
const id = idField();

function checkNotPast(value: { expired_time?: number | undefined }, ctx: z.RefinementCtx): void {
  if (value.expired_time && value.expired_time <= Math.floor(Date.now() / 1000)) {
    ctx.addIssue({ code: 'custom', message: redemptionMessages.expiredTimePast, path: [] });
  }
}

/** POST /api/redemption/: a blank name defaults to the formatted quota (e.g. '$0.20'). */
export const createRedemptionSchema = z
  .object({
    name: name.optional(),
    quota,
    count: z
      .number({ error: redemptionMessages.countInvalid })
      .int({ error: redemptionMessages.countInvalid })
      .min(1, { error: redemptionMessages.countInvalid })
      .max(redemptionBatchMax, { error: redemptionMessages.countInvalid })
      .default(redemptionDefaults.count),
    expired_time: expiredTime.optional(),
  })
  .superRefine(checkNotPast);

/** PUT /api/redemption/: id plus any of name, quota, expired_time (the editor may send the whole row). */
export const updateRedemptionSchema = z
  .object({
    id,
    name: name.min(1, { error: redemptionMessages.nameTooLong }).optional(),
    quota: quota.optional(),
    expired_time: expiredTime.optional(),
  })
  .superRefine(checkNotPast);

/** PUT /api/redemption/?status_only=true: 1 enables, 2 disables. */
export const updateRedemptionStatusSchema = z.object({
  id,
  status: z.union([z.literal(1), z.literal(2)], { error: '状态必须是 1（启用）或 2（禁用）' }),
});

/** POST /api/user/topup. */
export const redeemCodeSchema = z.object({
  key: z
    .string({ error: walletMessages.keyRequired })
    .trim()
    .min(1, { error: walletMessages.keyRequired })
    .max(128, { error: walletMessages.keyInvalid }),
});

const amount = z
  .number({ error: walletMessages.amountInvalid })
  .int({ error: walletMessages.amountInvalid })
  .min(1, { error: walletMessages.amountInvalid })
  .max(1_000_000_000, { error: walletMessages.amountInvalid });

/** POST /api/user/amount: amount in units of $ (QuotaPerUnit quota each). */
export const topUpAmountSchema = z.object({
  amount,
  top_up_code: z.string({ error: 'top_up_code 必须是字符串' }).max(128).optional(),
});

/** POST /api/user/pay. */
export const topUpPaySchema = topUpAmountSchema.extend({
  payment_method: z.enum(paymentMethods, { error: walletMessages.paymentMethodInvalid }),
});

export type CreateRedemptionInput = z.infer<typeof createRedemptionSchema>;
export type UpdateRedemptionInput = z.infer<typeof updateRedemptionSchema>;
export type TopUpAmountInput = z.infer<typeof topUpAmountSchema>;
export type TopUpPayInput = z.infer<typeof topUpPaySchema>;
/** What the console sends to create codes. */
export type CreateRedemptionPayload = z.input<typeof createRedemptionSchema>;
/** What the console sends to edit a code. */
export type UpdateRedemptionPayload = z.input<typeof updateRedemptionSchema>;
