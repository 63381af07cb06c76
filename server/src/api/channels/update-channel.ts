import { ChannelStatus, channelMessages, type UpdateChannelInput } from '@modelgate/shared';
import { notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { rebuildAbilities } from './abilities.js';
import { applyTypeDefaults, channelListColumns, channelValuesOf } from './channel-values.js';
import { checkChannelTypeSupported, checkChannelValues } from './validate-channel.js';

/** PUT /api/channel/: changes the given fields (a status-, priority- or weight-only update included). */
export async function updateChannel(ctx: AppContext, input: UpdateChannelInput) {
  const { id, ...fields } = input;
  const db = ctx.storage.db;
  const updated = await db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('channels').select(['id', 'type', 'status', 'other', 'key', 'base_url']).where('id', '=', id).executeTakeFirst();
    if (!current) throw notFound(channelMessages.notFound);
    const type = fields.type ?? current.type;
    // A type without an adapter is never switched to, nor enabled (an already enabled row may still be edited).
    const isTypeChanged = type !== current.type;
    const isBeingEnabled = fields.status === ChannelStatus.enabled && current.status !== ChannelStatus.enabled;
    if (isTypeChanged || isBeingEnabled) checkChannelTypeSupported(type);
    const values = applyTypeDefaults(channelValuesOf(fields), type, fields.other === undefined ? current.other : '');
    if (fields.type !== undefined || fields.key || fields.other !== undefined || fields.base_url !== undefined) {
      const key = typeof values.key === 'string' && values.key ? values.key : current.key;
      // A JSON key (Vertex service account) is one key over several lines; others are one key per line.
      const keys = key.trim().startsWith('{') ? [key] : key.split('\n').filter((part) => part.trim());
      for (const line of keys) {
        checkChannelValues(type, line, String(values.other ?? current.other ?? ''), String(values.base_url ?? current.base_url ?? ''));
      }
    }
    if (Object.keys(values).length > 0) await trx.updateTable('channels').set(values).where('id', '=', id).execute();
    await rebuildAbilities(trx, [id]);
    return trx.selectFrom('channels').select([...channelListColumns]).where('id', '=', id).executeTakeFirstOrThrow();
  });
  await ctx.bus.publish('channels');
  return updated;
}
