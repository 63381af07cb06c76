import { channelMessages } from '@modelgate/shared';
import type { AppContext } from '../context.js';
import { notFound } from '../../lib/errors.js';

/** GET /api/channel/:id: the whole channel, key included (admins edit it). */
export async function getChannel(ctx: AppContext, id: number) {
  const channel = await ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  if (!channel) throw notFound(channelMessages.notFound);
  return channel;
}
