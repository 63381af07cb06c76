import { redemptionBatchMax, redemptionDefaults, redemptionNameMaxLength } from '@modelgate/shared';

export interface RedemptionFormValues {
  name: string;
  quota: number | string | null;
  count: number | string | null;
}

export const newRedemptionForm: RedemptionFormValues = { name: '', quota: redemptionDefaults.quota, count: redemptionDefaults.count };

export type RedemptionProblem = 'nameTooLong' | 'quotaInvalid' | 'countInvalid';

const integerOf = (value: number | string | null | undefined): number => (value === null || value === undefined || value === '' ? Number.NaN : Math.trunc(Number(value)));

/** Redemption form: count and quota parsed as integers; a blank name becomes the formatted quota; name 1–20 characters, count 1–100. */
export function redemptionPayloadOf(values: RedemptionFormValues, formatQuota: (quota: number) => string): { payload: { name: string; quota: number; count: number } } | { problem: RedemptionProblem } {
  const quota = integerOf(values.quota);
  if (!Number.isInteger(quota) || quota < 1) return { problem: 'quotaInvalid' };
  const count = integerOf(values.count ?? 1);
  if (!Number.isInteger(count) || count < 1 || count > redemptionBatchMax) return { problem: 'countInvalid' };
  const name = (values.name ?? '').trim() || formatQuota(quota);
  if (name.length > redemptionNameMaxLength) return { problem: 'nameTooLong' };
  return { payload: { name, quota, count } };
}
