import type { AppContext } from '../../context.js';
import { findOwnToken } from './token-rules.js';

/** DELETE /api/token/:id: removes the caller's own token; the relay drops it from its cache. */
export async function deleteToken(ctx: AppContext, userId: number, id: number): Promise<void> {
  const token = await findOwnToken(ctx, userId, id);
  await ctx.storage.db.deleteFrom('tokens').where('id', '=', token.id).where('user_id', '=', userId).execute();
  await ctx.bus.publish('tokens', String(token.id));
}
