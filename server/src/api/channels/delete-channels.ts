import { ChannelStatus, channelMessages } from '@modelgate/shared';
import type { Db } from '../../db/index.js';
import { notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { chunks } from './abilities.js';

async function deleteByIds(trx: Db, ids: number[]): Promise<number> {
  let count = 0;
  for (const batch of chunks(ids)) {
    await trx.deleteFrom('abilities').where('channel_id', 'in', batch).execute();
    const result = await trx.deleteFrom('channels').where('id', 'in', batch).executeTakeFirst();
    count += Number(result.numDeletedRows);
  }
  return count;
}

/** DELETE /api/channel/:id: the channel and its abilities. */
export async function deleteChannel(ctx: AppContext, id: number): Promise<void> {
  const count = await ctx.storage.db.transaction().execute((trx) => deleteByIds(trx, [id]));
  if (count === 0) throw notFound(channelMessages.notFound);
  await ctx.bus.publish('channels');
}

/** POST /api/channel/batch: deletes the chosen channels; returns how many existed. */
export async function deleteChannels(ctx: AppContext, ids: number[]): Promise<number> {
  const count = await ctx.storage.db.transaction().execute((trx) => deleteByIds(trx, [...new Set(ids)]));
  await ctx.bus.publish('channels');
  return count;
}

/** DELETE /api/channel/disabled: every manually or automatically disabled channel. */
export async function deleteDisabledChannels(ctx: AppContext): Promise<number> {
  const count = await ctx.storage.db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('channels').select('id').where('status', '!=', ChannelStatus.enabled).execute();
    return deleteByIds(
      trx,
      rows.map((row) => row.id),
    );
  });
  await ctx.bus.publish('channels');
  return count;
}
