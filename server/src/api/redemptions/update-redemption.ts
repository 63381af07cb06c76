import { redemptionMessages, type UpdateRedemptionInput } from '@modelgate/shared';
import type { Updateable } from 'kysely';
import type { RedemptionsTable } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { findRedemption, RedemptionStatus, type RedemptionView } from './redemption-rules.js';

/**
 * Writes `values` only while the row still has `expectedStatus` (a concurrent redemption wins);
 * a lost race answers the same message as the pre-check would have.
 */
async function saveIf(
  ctx: AppContext,
  code: RedemptionView,
  expectedStatus: number,
  values: Updateable<RedemptionsTable>,
  lostMessage: string,
): Promise<RedemptionView> {
  const result = await ctx.storage.db
    .updateTable('redemptions')
    .set(values)
    .where('id', '=', code.id)
    .where('status', '=', expectedStatus)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new AppError('conflict', lostMessage);
  return findRedemption(ctx, code.id);
}

/** PUT /api/redemption/: name, quota and expiry of a code that is still unused (status 1). */
export async function updateRedemption(ctx: AppContext, input: UpdateRedemptionInput): Promise<RedemptionView> {
  const code = await findRedemption(ctx, input.id);
  if (code.status !== RedemptionStatus.unused) throw new AppError('invalid_input', redemptionMessages.editOnlyUnused);
  const values: Updateable<RedemptionsTable> = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.quota !== undefined) values.quota = input.quota;
  if (input.expired_time !== undefined) values.expired_time = input.expired_time;
  if (Object.keys(values).length === 0) return code;
  return saveIf(ctx, code, RedemptionStatus.unused, values, redemptionMessages.editOnlyUnused);
}

/** PUT /api/redemption/?status_only=true: 1 enables, 2 disables; a used code (3) stays used. */
export async function updateRedemptionStatus(ctx: AppContext, id: number, status: 1 | 2): Promise<RedemptionView> {
  const code = await findRedemption(ctx, id);
  if (code.status === RedemptionStatus.used) {
    throw new AppError(
      'invalid_input',
      status === RedemptionStatus.unused ? redemptionMessages.cannotEnableUsed : '已使用的兑换码无法禁用',
    );
  }
  if (code.status === status) return code;
  return saveIf(ctx, code, code.status, { status }, redemptionMessages.cannotEnableUsed);
}
