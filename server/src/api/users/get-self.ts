import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { selfUserColumns, userNotFoundMessage } from './user-views.js';

/** The signed-in user's own row (no password, access token or admin remark). */
export async function getSelf(ctx: AppContext, userId: number) {
  const user = await ctx.storage.db.selectFrom('users').select(selfUserColumns).where('id', '=', userId).executeTakeFirst();
  if (!user) throw notFound(userNotFoundMessage);
  return user;
}
