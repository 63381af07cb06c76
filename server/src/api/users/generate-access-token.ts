import { randomKey } from '../../lib/crypto.js';
import type { AppContext } from '../../context.js';

/** A new 32-character system access token replaces the old one. */
export async function generateAccessToken(ctx: AppContext, userId: number): Promise<string> {
  const token = randomKey(32);
  await ctx.storage.db.updateTable('users').set({ access_token: token }).where('id', '=', userId).execute();
  await ctx.bus.publish('users', String(userId));
  return token;
}
