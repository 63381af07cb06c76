import { RedemptionStatus, redemptionMessages } from '@modelgate/shared';
import type { RedemptionRow } from '../../db/schema.js';
import { notFound } from '../../lib/errors.js';
import type { OptionStore } from '../../options/store.js';
import type { AppContext } from '../../context.js';

/** Columns an admin sees (the key is shown in full: admins hand codes out). */
export const redemptionColumns = [
  'id',
  'user_id',
  'key',
  'status',
  'name',
  'quota',
  'created_time',
  'redeemed_time',
  'used_user_id',
  'expired_time',
] as const;

export type RedemptionView = Pick<RedemptionRow, (typeof redemptionColumns)[number]>;

/** A live (not deleted) redemption code, or 404. */
export async function findRedemption(ctx: AppContext, id: number): Promise<RedemptionView> {
  const row = await ctx.storage.db
    .selectFrom('redemptions')
    .select([...redemptionColumns])
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw notFound(redemptionMessages.notFound);
  return row;
}

/** Quota in dollars with two decimals ('$0.20' for 100000 at QuotaPerUnit 500000): the default code name. */
export function dollarsOf(options: OptionStore, quota: number): string {
  return `$${(quota / options.number('QuotaPerUnit')).toFixed(2)}`;
}

export { RedemptionStatus };
