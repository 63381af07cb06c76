import { createPlanSchema, subscriptionMessages, updatePlanSchema, type PlanPayload } from '@modelgate/shared';
import { firstProblem } from '../../../lib/form-rules';

/** The plan editor's values (the payload's fields; a cleared number is null). */
export type PlanFormValues = { [K in keyof Required<PlanPayload>]: Required<PlanPayload>[K] | null };

export const blankPlan: PlanPayload = {
  name: '',
  description: '',
  price: 0,
  period_unit: 'month',
  period_count: 1,
  quota: 500000,
  models: [],
  groups: [],
  enabled: true,
  sort_order: 0,
};

/** The i18n key (under subscriptions.admin) of each problem the shared schema names. */
const problemKeys: Partial<Record<keyof typeof subscriptionMessages, string>> = {
  nameRequired: 'nameRequired',
  quotaInvalid: 'quotaRequired',
  priceInvalid: 'priceInvalid',
  periodCountInvalid: 'periodCountInvalid',
  periodUnitInvalid: 'periodUnitInvalid',
  listInvalid: 'listInvalid',
};

/** A message the plan editor shows: a key under subscriptions.admin, or the API schema's own text. */
export type PlanFormProblem = { key: string | null; message: string };

/**
 * The plan editor's payload, checked by the API's own schema (createPlanSchema, or updatePlanSchema
 * for an existing plan), or the first problem found.
 */
export function planPayloadOf(values: Partial<PlanFormValues>, id: number | null): { payload: PlanPayload } | { problem: PlanFormProblem } {
  const payload: PlanPayload = {
    name: values.name ?? '',
    description: values.description ?? '',
    price: values.price ?? Number.NaN,
    period_unit: values.period_unit ?? blankPlan.period_unit,
    period_count: values.period_count ?? Number.NaN,
    quota: values.quota ?? Number.NaN,
    models: values.models ?? [],
    groups: values.groups ?? [],
    enabled: values.enabled ?? true,
    sort_order: values.sort_order ?? 0,
  };
  const problem =
    id === null
      ? firstProblem(createPlanSchema, payload, subscriptionMessages)
      : firstProblem(updatePlanSchema, { ...payload, id }, subscriptionMessages);
  if (!problem) return { payload };
  const key = problem.key === null ? null : (problemKeys[problem.key as keyof typeof subscriptionMessages] ?? null);
  return { problem: { key, message: problem.message } };
}
