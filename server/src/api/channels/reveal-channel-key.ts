import { channelMessages } from '@modelgate/shared';
import { notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';

/** POST /api/channel/:id/key (root only, an explicit reveal): the channel's stored key. */
export async function revealChannelKey(ctx: AppContext, id: number): Promise<{ key: string }> {
  const row = await ctx.storage.db.selectFrom('channels').select('key').where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(channelMessages.notFound);
  return { key: row.key };
}
