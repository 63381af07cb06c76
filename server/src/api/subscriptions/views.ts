import type { Selectable } from 'kysely';
import type { SubscriptionPlansTable, UserSubscriptionsTable } from '../../db/schema.js';
import { namesOf } from '../../subscriptions/coverage.js';

export type PlanRow = Selectable<SubscriptionPlansTable>;
export type UserSubscriptionRow = Selectable<UserSubscriptionsTable>;

/** A plan as the API answers it: models and groups as arrays, enabled as a boolean. */
export function planView(row: PlanRow, currency: string) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    price: Number(row.price),
    currency,
    period_unit: row.period_unit,
    period_count: row.period_count,
    quota: Number(row.quota),
    models: namesOf(row.models),
    groups: namesOf(row.groups),
    enabled: row.enabled === 1,
    sort_order: row.sort_order,
  };
}

/**
 * A user's subscription: `renews` while its gateway renews it (no planned end); `is_funding` while
 * it pays for calls now (active, inside its period).
 */
export function subscriptionView(row: UserSubscriptionRow, now: number) {
  return {
    id: row.id,
    user_id: row.user_id,
    plan_id: row.plan_id,
    plan_name: row.plan_name,
    source: row.source,
    status: row.status,
    period_unit: row.period_unit,
    period_count: row.period_count,
    period_quota: Number(row.period_quota),
    remaining_quota: Number(row.remaining_quota),
    models: namesOf(row.models),
    groups: namesOf(row.groups),
    period_start: Number(row.period_start),
    period_end: Number(row.period_end),
    ends_at: Number(row.ends_at),
    cancelled_at: Number(row.cancelled_at),
    renews: row.status === 'active' && Number(row.ends_at) === 0,
    is_funding: row.status === 'active' && Number(row.period_start) <= now && now < Number(row.period_end),
    created_time: Number(row.created_time),
  };
}
