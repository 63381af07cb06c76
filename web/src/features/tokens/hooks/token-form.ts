import {
  createTokenSchema,
  tokenDefaults,
  tokenMessages,
  toNameList,
  updateTokenSchema,
  type CreateTokenPayload,
  type Token,
} from '@modelgate/shared';
import { firstProblem } from '../../../lib/form-rules';
import { formatDateTime } from '../../../lib/format';
import { parseExpiry } from './token-time';

export interface TokenFormValues {
  name: string;
  remain_quota: number | null;
  unlimited_quota: boolean;
  expired_text: string;
  model_limits_enabled: boolean;
  model_limits: string[];
  allow_ips: string;
  group: string;
  max_concurrency: number | null;
  cross_group_retry: boolean;
  response_cache_ttl: number | null;
  count: number | null;
}

/** Quota presets (500000 = $1). */
export const quotaPresets = [500000, 5000000, 25000000, 50000000, 250000000, 500000000] as const;
/** Batch count presets. */
export const countPresets = [10, 20, 30, 100] as const;

export const newTokenForm: TokenFormValues = {
  name: '',
  remain_quota: tokenDefaults.remainQuota,
  unlimited_quota: false,
  expired_text: '-1',
  model_limits_enabled: false,
  model_limits: [],
  allow_ips: '',
  group: '',
  max_concurrency: 0,
  cross_group_retry: false,
  response_cache_ttl: 0,
  count: 1,
};

export const tokenFormOf = (token: Token): TokenFormValues => ({
  name: token.name,
  remain_quota: token.remain_quota,
  unlimited_quota: !!token.unlimited_quota,
  expired_text: token.expired_time === -1 ? '-1' : formatDateTime(token.expired_time),
  model_limits_enabled: !!token.model_limits_enabled,
  model_limits: toNameList(token.model_limits),
  allow_ips: token.allow_ips ?? '',
  group: token.group ?? '',
  max_concurrency: token.max_concurrency ?? 0,
  cross_group_retry: !!token.cross_group_retry,
  response_cache_ttl: token.response_cache_ttl ?? 0,
  count: 1,
});

/** A message the token form shows: a key under tokens.msg, or the API schema's own text. */
export type TokenFormProblem = { key: string | null; message: string };

/**
 * The token form's payload, checked by the API's own schema (createTokenSchema or updateTokenSchema),
 * or the first problem found. The expiry text is the form's own field, parsed here.
 */
export function tokenPayloadOf(
  values: TokenFormValues,
  isCreate: boolean,
): { payload: CreateTokenPayload } | { problem: TokenFormProblem } {
  const expiredTime = parseExpiry(values.expired_text ?? '');
  if (expiredTime === null) return { problem: { key: 'expiredTimeInvalid', message: tokenMessages.expiredTimeInvalid } };
  const payload: CreateTokenPayload = {
    name: (values.name ?? '').trim(),
    remain_quota: values.unlimited_quota ? 0 : Number(values.remain_quota ?? 0),
    unlimited_quota: values.unlimited_quota,
    expired_time: expiredTime,
    model_limits_enabled: values.model_limits_enabled,
    model_limits: values.model_limits ?? [],
    allow_ips: values.allow_ips ?? '',
    group: values.group ?? '',
    max_concurrency: Math.max(0, Math.floor(Number(values.max_concurrency ?? 0)) || 0),
    cross_group_retry: !!values.cross_group_retry,
    response_cache_ttl: Math.max(0, Math.floor(Number(values.response_cache_ttl ?? 0)) || 0),
    ...(isCreate ? { count: Number(values.count ?? 1) } : {}),
  };
  const problem = firstProblem(isCreate ? createTokenSchema : updateTokenSchema, isCreate ? payload : { ...payload, id: 1 }, tokenMessages);
  return problem ? { problem } : { payload };
}
