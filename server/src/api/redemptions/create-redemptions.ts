import { RedemptionStatus, redemptionKeyLength, type CreateRedemptionInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { randomKey } from '../../lib/crypto.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../context.js';
import { dollarsOf, redemptionColumns, type RedemptionView } from './redemption-rules.js';

/** POST /api/redemption/: `count` unused codes with 32-character random keys, in one transaction. */
export async function createRedemptions(ctx: AppContext, admin: AuthUser, input: CreateRedemptionInput): Promise<RedemptionView[]> {
  const common = {
    user_id: admin.id,
    status: RedemptionStatus.unused,
    name: input.name || dollarsOf(ctx.options, input.quota),
    quota: input.quota,
    created_time: nowSeconds(),
    expired_time: input.expired_time ?? 0,
  };
  return ctx.storage.db.transaction().execute(async (trx) => {
    const storage = { ...ctx.storage, db: trx };
    const ids: number[] = [];
    for (let i = 0; i < input.count; i++) {
      ids.push(await insertReturningId(storage, 'redemptions', { ...common, key: randomKey(redemptionKeyLength) }));
    }
    return trx.selectFrom('redemptions').select([...redemptionColumns]).where('id', 'in', ids).orderBy('id', 'asc').execute();
  });
}
