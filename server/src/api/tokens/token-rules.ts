import { TokenStatus, tokenMessages, toNameList } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import type { TokenRow } from '../../db/schema.js';
import { invalidInput, notFound } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';

/** Token columns returned to their owner (the key is shown as stored; the console adds 'sk-'). */
export const tokenColumns = [
  'id',
  'user_id',
  'key',
  'status',
  'name',
  'created_time',
  'accessed_time',
  'expired_time',
  'remain_quota',
  'unlimited_quota',
  'model_limits_enabled',
  'model_limits',
  'allow_ips',
  'used_quota',
  'group',
  'max_concurrency',
  'cross_group_retry',
  'response_cache_ttl',
] as const;

export type TokenView = Pick<TokenRow, (typeof tokenColumns)[number]>;

/** A group a token may use: one of UserUsableGroups or the owner's own group ('' means the owner's group). */
export function assertUsableGroup(ctx: AppContext, user: AuthUser, group: string | null | undefined): void {
  if (!group) return;
  const usable = ctx.options.json<Record<string, unknown>>('UserUsableGroups');
  const isUsable = group === user.group || (typeof usable === 'object' && usable !== null && Object.hasOwn(usable, group));
  if (!isUsable) throw invalidInput(tokenMessages.groupUnavailable(group));
}

/** An expired or exhausted token cannot be enabled. */
export function assertCanEnable(token: Pick<TokenRow, 'expired_time' | 'remain_quota' | 'unlimited_quota'>): void {
  if (token.expired_time !== -1 && token.expired_time < nowSeconds()) throw invalidInput(tokenMessages.cannotEnableExpired);
  if (token.unlimited_quota !== 1 && token.remain_quota <= 0) throw invalidInput(tokenMessages.cannotEnableExhausted);
}

/** The caller's own live token, or 404 (another user's token looks exactly like a missing one). */
export async function findOwnToken(ctx: AppContext, userId: number, id: number): Promise<TokenView> {
  const token = await ctx.storage.db
    .selectFrom('tokens')
    .select([...tokenColumns])
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!token) throw notFound(tokenMessages.notFound);
  return token;
}

export const flagOf = (value: boolean | 0 | 1): number => (value === true || value === 1 ? 1 : 0);
export const modelLimitsOf = (value: string | string[] | null | undefined): string => toNameList(value).join(',');
export const allowIpsOf = (value: string | null | undefined): string =>
  (value ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join('\n');

export { TokenStatus };
