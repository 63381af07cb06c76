import { TokenStatus, tokenBatchSuffixLength, tokenDefaults, tokenKeyLength, type CreateTokenInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { randomKey } from '../../lib/crypto.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { allowIpsOf, assertUsableGroup, flagOf, modelLimitsOf, tokenColumns, type TokenView } from './token-rules.js';

/** POST /api/token/: one token, or `count` of them (extra ones named name-<6 random chars>). */
export async function createTokens(ctx: AppContext, user: AuthUser, input: CreateTokenInput): Promise<TokenView[]> {
  assertUsableGroup(ctx, user, input.group);
  const name = input.name ?? '';
  const count = input.count ?? 1;
  const common = {
    user_id: user.id,
    status: TokenStatus.enabled,
    created_time: nowSeconds(),
    accessed_time: nowSeconds(),
    expired_time: input.expired_time ?? tokenDefaults.expiredTime,
    remain_quota: input.remain_quota ?? tokenDefaults.remainQuota,
    unlimited_quota: flagOf(input.unlimited_quota ?? false),
    model_limits_enabled: flagOf(input.model_limits_enabled ?? false),
    model_limits: modelLimitsOf(input.model_limits),
    allow_ips: allowIpsOf(input.allow_ips),
    group: input.group ?? '',
    max_concurrency: input.max_concurrency ?? 0,
    cross_group_retry: flagOf(input.cross_group_retry ?? false),
    response_cache_ttl: input.response_cache_ttl ?? 0,
  };
  return ctx.storage.db.transaction().execute(async (trx) => {
    const storage = { ...ctx.storage, db: trx };
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const tokenName = i === 0 ? name : `${name}-${randomKey(tokenBatchSuffixLength)}`;
      ids.push(await insertReturningId(storage, 'tokens', { ...common, name: tokenName, key: randomKey(tokenKeyLength) }));
    }
    return trx
      .selectFrom('tokens')
      .select([...tokenColumns])
      .where('id', 'in', ids)
      .orderBy('id', 'asc')
      .execute();
  });
}
