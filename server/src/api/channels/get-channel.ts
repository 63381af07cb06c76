import { channelMessages } from '@modelgate/shared';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { channelListColumns } from './channel-values.js';

/**
 * GET /api/channel/:id: the channel for the editor, without its key (for admins and root alike);
 * the root reads a key only through revealChannelKey.
 */
export async function getChannel(ctx: AppContext, id: number) {
  const channel = await ctx.storage.db
    .selectFrom('channels')
    .select([...channelListColumns])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!channel) throw notFound(channelMessages.notFound);
  return channel;
}
