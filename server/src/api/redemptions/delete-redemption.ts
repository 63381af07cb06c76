import { nowSeconds } from '../../db/index.js';
import type { AppContext } from '../../context.js';
import { findRedemption } from './redemption-rules.js';

/**
 * DELETE /api/redemption/:id: a soft delete (deleted_at), so top-up logs that name the code's id
 * still point at a row; a deleted code can no longer be listed, edited or redeemed.
 */
export async function deleteRedemption(ctx: AppContext, id: number): Promise<void> {
  const code = await findRedemption(ctx, id);
  await ctx.storage.db
    .updateTable('redemptions')
    .set({ deleted_at: nowSeconds() })
    .where('id', '=', code.id)
    .where('deleted_at', 'is', null)
    .execute();
}
