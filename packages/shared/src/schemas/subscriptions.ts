import { z } from 'zod';
import { cleanText, idField } from './fields.js';

/**
 * Which source pays a relayed call (new-api's names): the subscription's period allowance first
 * (the default), the wallet first, only the wallet, or only the subscription.
 */
export const fundingPreferences = ['subscription_first', 'wallet_first', 'wallet_only', 'subscription_only'] as const;
export type FundingPreference = (typeof fundingPreferences)[number];
export const defaultFundingPreference: FundingPreference = 'subscription_first';

/** A plan's period is `period_count` × `period_unit`. */
export const periodUnits = ['day', 'week', 'month', 'year'] as const;
export type PeriodUnit = (typeof periodUnits)[number];

export const planNameMaxLength = 64;
export const planListMax = 200;

export const subscriptionMessages = {
  nameRequired: `套餐名称长度必须在 1 到 ${planNameMaxLength} 个字符之间`,
  priceInvalid: '价格必须是不小于 0 的数字',
  periodUnitInvalid: '周期单位必须是 day、week、month 或 year',
  periodCountInvalid: '周期数必须是 1 到 365 之间的整数',
  quotaInvalid: '每周期额度必须是大于 0 的整数',
  listInvalid: '模型和分组必须是字符串列表',
  planNotFound: '套餐不存在',
  planDisabled: '该套餐未启用',
  planNotForSale: '该套餐价格为 0，只能由管理员授予',
  alreadySubscribed: '你已有自动续费的订阅，请先取消',
  purchaseInProgress: '你有一笔订阅购买正在进行中，请稍后再试',
  purchasePaid: '你的上一笔订阅已付款，正在开通，请稍后刷新',
  subscriptionNotFound: '订阅不存在',
  notRenewing: '该订阅不会续费，无需取消',
  preferenceInvalid: '扣费优先级必须是 subscription_first、wallet_first、wallet_only 或 subscription_only',
  periodsInvalid: '授予周期数必须是 1 到 120 之间的整数',
  userNotFound: '用户不存在',
  cardPaymentOff: '管理员未开启银行卡支付',
  planSaved: '套餐已保存',
  granted: '订阅已授予',
  revoked: '订阅已终止',
  cancelled: '订阅已取消，将在当前周期结束时停止',
  preferenceSaved: '扣费优先级已保存',
} as const;

const names = z
  .array(cleanText(191, { error: subscriptionMessages.listInvalid }).trim().min(1, { error: subscriptionMessages.listInvalid }), {
    error: subscriptionMessages.listInvalid,
  })
  .max(planListMax, { error: subscriptionMessages.listInvalid })
  .transform((list) => [...new Set(list)]);

/** POST /api/subscription/admin/plan and PUT (with id): what an admin sells. */
export const planFieldsSchema = z.object({
  name: cleanText(planNameMaxLength, { error: subscriptionMessages.nameRequired })
    .trim()
    .min(1, { error: subscriptionMessages.nameRequired }),
  description: cleanText(255).default(''),
  price: z
    .number({ error: subscriptionMessages.priceInvalid })
    .finite({ error: subscriptionMessages.priceInvalid })
    .min(0, { error: subscriptionMessages.priceInvalid })
    .max(1_000_000, { error: subscriptionMessages.priceInvalid }),
  period_unit: z.enum(periodUnits, { error: subscriptionMessages.periodUnitInvalid }),
  period_count: z
    .number({ error: subscriptionMessages.periodCountInvalid })
    .int({ error: subscriptionMessages.periodCountInvalid })
    .min(1, { error: subscriptionMessages.periodCountInvalid })
    .max(365, { error: subscriptionMessages.periodCountInvalid }),
  quota: z
    .number({ error: subscriptionMessages.quotaInvalid })
    .int({ error: subscriptionMessages.quotaInvalid })
    .min(1, { error: subscriptionMessages.quotaInvalid })
    .max(2 ** 40, { error: subscriptionMessages.quotaInvalid }),
  models: names.default([]),
  groups: names.default([]),
  enabled: z.boolean().default(true),
  sort_order: z.number().int().min(-1_000_000).max(1_000_000).default(0),
});
export const createPlanSchema = planFieldsSchema;
export const updatePlanSchema = planFieldsSchema.extend({ id: idField() });

/** POST /api/subscription/stripe/pay: buy a plan by card. */
export const subscribePlanSchema = z.object({ plan_id: idField('plan_id') });

/** POST /api/subscription/admin/grant: an admin gives a user a plan for some periods, unpaid. */
export const grantPlanSchema = z.object({
  user_id: idField('user_id'),
  plan_id: idField('plan_id'),
  periods: z
    .number({ error: subscriptionMessages.periodsInvalid })
    .int({ error: subscriptionMessages.periodsInvalid })
    .min(1, { error: subscriptionMessages.periodsInvalid })
    .max(120, { error: subscriptionMessages.periodsInvalid })
    .default(1),
});

/** PUT /api/subscription/self/preference. */
export const fundingPreferenceSchema = z.object({
  billing_preference: z.enum(fundingPreferences, { error: subscriptionMessages.preferenceInvalid }),
});

export type PlanInput = z.infer<typeof createPlanSchema>;
export type UpdatePlanInput = z.infer<typeof updatePlanSchema>;
export type GrantPlanInput = z.infer<typeof grantPlanSchema>;
/** What the console sends to create a plan (defaults may be left out). */
export type PlanPayload = z.input<typeof createPlanSchema>;
/** What the console sends to update a plan. */
export type UpdatePlanPayload = z.input<typeof updatePlanSchema>;
/** What the console sends to grant a plan. */
export type GrantPlanPayload = z.input<typeof grantPlanSchema>;
