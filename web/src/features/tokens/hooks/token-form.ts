import { tokenDefaults, toNameList } from '@modelgate/shared';
import type { Token, TokenPayload } from '../api/tokens';
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

export type TokenFormProblem = 'nameRequired' | 'expiredTimeInvalid' | 'countInvalid' | 'remainQuotaInvalid';

/** The token-form rules; the payload, or the message key of the first failing rule. */
export function tokenPayloadOf(values: TokenFormValues, isCreate: boolean): { payload: TokenPayload } | { problem: TokenFormProblem } {
  const name = (values.name ?? '').trim();
  if (isCreate && name === '') return { problem: 'nameRequired' };
  const expiredTime = parseExpiry(values.expired_text ?? '');
  if (expiredTime === null) return { problem: 'expiredTimeInvalid' };
  const quota = Number(values.remain_quota ?? 0);
  if (!values.unlimited_quota && (!Number.isInteger(quota) || quota < 0)) return { problem: 'remainQuotaInvalid' };
  const count = Number(values.count ?? 1);
  if (isCreate && (!Number.isInteger(count) || count < 1 || count > 100)) return { problem: 'countInvalid' };
  return {
    payload: {
      name,
      remain_quota: values.unlimited_quota ? 0 : quota,
      unlimited_quota: values.unlimited_quota,
      expired_time: expiredTime,
      model_limits_enabled: values.model_limits_enabled,
      model_limits: values.model_limits ?? [],
      allow_ips: values.allow_ips ?? '',
      group: values.group ?? '',
      max_concurrency: Math.max(0, Math.floor(Number(values.max_concurrency ?? 0)) || 0),
      cross_group_retry: !!values.cross_group_retry,
      response_cache_ttl: Math.max(0, Math.floor(Number(values.response_cache_ttl ?? 0)) || 0),
      ...(isCreate ? { count } : {}),
    },
  };
}
