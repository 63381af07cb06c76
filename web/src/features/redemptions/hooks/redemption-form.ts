import { createRedemptionSchema, redemptionDefaults, redemptionMessages, updateRedemptionSchema } from '@modelgate/shared';
import { firstProblem } from '../../../lib/form-rules';

export interface RedemptionFormValues {
  name: string;
  quota: number | string | null;
  count: number | string | null;
}

export const newRedemptionForm: RedemptionFormValues = { name: '', quota: redemptionDefaults.quota, count: redemptionDefaults.count };

/** A message the redemption form shows: a key under redemptions.msg, or the API schema's own text. */
export type RedemptionProblem = { key: string | null; message: string };

const integerOf = (value: number | string | null | undefined): number =>
  value === null || value === undefined || value === '' ? Number.NaN : Math.trunc(Number(value));

/**
 * The redemption form's payload, checked by the API's own schema (createRedemptionSchema, or
 * updateRedemptionSchema when editing), or the first problem found. Count and quota are read as
 * integers; a blank name becomes the formatted quota.
 */
export function redemptionPayloadOf(
  values: RedemptionFormValues,
  formatQuota: (quota: number) => string,
  isCreate = true,
): { payload: { name: string; quota: number; count: number } } | { problem: RedemptionProblem } {
  const quota = integerOf(values.quota);
  const count = integerOf(values.count ?? 1);
  const name = (values.name ?? '').trim() || (Number.isInteger(quota) && quota >= 1 ? formatQuota(quota) : '');
  const payload = { name, quota, count };
  // A blank name with no valid quota to name it after is the quota's problem, not the name's.
  const named = name === '' ? {} : { name };
  const problem = isCreate
    ? firstProblem(createRedemptionSchema, { ...named, quota, count }, redemptionMessages)
    : firstProblem(updateRedemptionSchema, { ...named, id: 1, quota }, redemptionMessages);
  return problem ? { problem } : { payload };
}
