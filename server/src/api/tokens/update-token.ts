import type { UpdateTokenInput } from '@modelgate/shared';
import type { Updateable } from 'kysely';
import type { TokensTable } from '../../db/schema.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import {
  allowIpsOf,
  assertCanEnable,
  assertUsableGroup,
  findOwnToken,
  flagOf,
  modelLimitsOf,
  TokenStatus,
  type TokenView,
} from './token-rules.js';

async function save(ctx: AppContext, token: TokenView, values: Updateable<TokensTable>): Promise<TokenView> {
  if (Object.keys(values).length > 0) {
    await ctx.storage.db.updateTable('tokens').set(values).where('id', '=', token.id).where('user_id', '=', token.user_id).execute();
  }
  await ctx.bus.publish('tokens', String(token.id));
  return { ...token, ...values } as TokenView;
}

/** PUT /api/token/?status_only=true: enable (1) or disable (2); an expired or exhausted token stays off. */
export async function updateTokenStatus(ctx: AppContext, user: AuthUser, id: number, status: 1 | 2): Promise<TokenView> {
  const token = await findOwnToken(ctx, user.id, id);
  if (status === TokenStatus.enabled) assertCanEnable(token);
  return save(ctx, token, { status });
}

/** PUT /api/token/: changes the given fields of the caller's own token. */
export async function updateToken(ctx: AppContext, user: AuthUser, input: UpdateTokenInput): Promise<TokenView> {
  const token = await findOwnToken(ctx, user.id, input.id);
  if (input.group !== undefined && input.group !== token.group) assertUsableGroup(ctx, user, input.group);
  const values: Updateable<TokensTable> = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.remain_quota !== undefined) values.remain_quota = input.remain_quota;
  if (input.unlimited_quota !== undefined) values.unlimited_quota = flagOf(input.unlimited_quota);
  if (input.expired_time !== undefined) values.expired_time = input.expired_time;
  if (input.model_limits_enabled !== undefined) values.model_limits_enabled = flagOf(input.model_limits_enabled);
  if (input.model_limits !== undefined) values.model_limits = modelLimitsOf(input.model_limits);
  if (input.allow_ips !== undefined) values.allow_ips = allowIpsOf(input.allow_ips);
  if (input.group !== undefined) values.group = input.group ?? '';
  if (input.max_concurrency !== undefined) values.max_concurrency = input.max_concurrency;
  if (input.cross_group_retry !== undefined) values.cross_group_retry = flagOf(input.cross_group_retry);
  if (input.response_cache_ttl !== undefined) values.response_cache_ttl = input.response_cache_ttl;
  const isToggle = input.status === TokenStatus.enabled || input.status === TokenStatus.disabled;
  if (input.status !== undefined && isToggle && input.status !== token.status) {
    if (input.status === TokenStatus.enabled) assertCanEnable({ ...token, ...values } as TokenView);
    values.status = input.status;
  }
  return save(ctx, token, values);
}
