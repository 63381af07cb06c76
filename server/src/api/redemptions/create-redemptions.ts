import { RedemptionStatus, redemptionKeyLength, type CreateRedemptionInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { randomKey } from '../../lib/crypto.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';
import { dollarsOf } from './redemption-rules.js';

/**
 * POST /api/redemption/: `count` unused codes with 32-character random keys, in one transaction.
 * Answers the keys as strings, in creation order (as new-api does: scripts that mint codes read them).
 */
export async function createRedemptions(ctx: AppContext, admin: AuthUser, input: CreateRedemptionInput): Promise<string[]> {
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
    const keys: string[] = [];
    for (let i = 0; i < input.count; i++) {
      const key = randomKey(redemptionKeyLength);
      await insertReturningId(storage, 'redemptions', { ...common, key });
      keys.push(key);
    }
    return keys;
  });
}
