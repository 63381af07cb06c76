import type { Selectable } from 'kysely';
import type { SubscriptionPlansTable } from '../../db/schema.js';
import { subscriptionMessages, type PlanInput, type UpdatePlanInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { AppError, invalidInput, notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { planView } from './views.js';

/** Stripe bills a recurring price at most once a year. */
const longestPeriod = { day: 365, week: 52, month: 12, year: 1 } as const;
export const periodTooLongMessage = '周期不能超过一年';
export const planInUseMessage = '套餐已被购买或授予，只能停用';

const currencyOf = (ctx: AppContext) => ctx.options.get('StripeCurrency').trim().toLowerCase() || 'usd';

function rowValues(input: PlanInput) {
  if (input.period_count > longestPeriod[input.period_unit]) throw invalidInput(periodTooLongMessage);
  return {
    name: input.name,
    description: input.description,
    price: input.price,
    period_unit: input.period_unit,
    period_count: input.period_count,
    quota: input.quota,
    models: JSON.stringify(input.models),
    groups: JSON.stringify(input.groups),
    enabled: input.enabled ? 1 : 0,
    sort_order: input.sort_order,
  };
}

/** GET /api/subscription/admin/plans (every plan) and /api/subscription/plans (enabled ones). */
export async function findPlans(ctx: AppContext, onlyEnabled: boolean) {
  let query = ctx.storage.db.selectFrom('subscription_plans').selectAll();
  if (onlyEnabled) query = query.where('enabled', '=', 1);
  const rows = await query.orderBy('sort_order').orderBy('id').execute();
  return rows.map((row) => planView(row, currencyOf(ctx)));
}

export async function findPlan(ctx: AppContext, id: number) {
  const row = await ctx.storage.db.selectFrom('subscription_plans').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(subscriptionMessages.planNotFound);
  return row;
}

export async function createPlan(ctx: AppContext, input: PlanInput) {
  const now = nowSeconds();
  const id = await insertReturningId(ctx.storage, 'subscription_plans', { ...rowValues(input), created_time: now, updated_time: now });
  return planView(await findPlan(ctx, id), currencyOf(ctx));
}

/** A plan's new terms apply to purchases and grants from now on; running subscriptions keep theirs. */
export async function updatePlan(ctx: AppContext, input: UpdatePlanInput) {
  await findPlan(ctx, input.id);
  await ctx.storage.db
    .updateTable('subscription_plans')
    .set({ ...rowValues(input), updated_time: nowSeconds() })
    .where('id', '=', input.id)
    .execute();
  return planView(await findPlan(ctx, input.id), currencyOf(ctx));
}

/** Only a plan nobody bought or was granted can be deleted; others are disabled instead. */
export async function deletePlan(ctx: AppContext, id: number): Promise<void> {
  await findPlan(ctx, id);
  const { db } = ctx.storage;
  const used =
    (await db.selectFrom('user_subscriptions').select('id').where('plan_id', '=', id).limit(1).executeTakeFirst()) ??
    (await db.selectFrom('subscription_orders').select('id').where('plan_id', '=', id).limit(1).executeTakeFirst());
  if (used) throw new AppError('conflict', planInUseMessage);
  await db.deleteFrom('subscription_plans').where('id', '=', id).execute();
}

/** The plan's terms a new subscription copies (later plan edits leave running subscriptions as they are). */
export function planTerms(plan: Selectable<SubscriptionPlansTable>) {
  return {
    plan_id: plan.id,
    plan_name: plan.name,
    period_unit: plan.period_unit,
    period_count: plan.period_count,
    period_quota: plan.quota,
    remaining_quota: plan.quota,
    models: plan.models,
    groups: plan.groups,
  };
}
