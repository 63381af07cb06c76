import type { Db } from '../../db/index.js';
import type { ChannelRow } from '../../db/schema.js';
import { ChannelStatus } from '@modelgate/shared';

type AbilitySource = Pick<ChannelRow, 'id' | 'models' | 'group' | 'status' | 'priority' | 'weight' | 'tag'>;

const chunkSize = 500;

function chunks<T>(items: T[], size = chunkSize): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const namesOf = (list: string) => [
  ...new Set(
    list
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  ),
];

/** One ability per (group, model) of a channel: what the relay's channel selection reads. */
export function abilitiesOf(channel: AbilitySource) {
  const rows = [];
  for (const group of namesOf(channel.group)) {
    for (const model of namesOf(channel.models)) {
      rows.push({
        group,
        model,
        channel_id: channel.id,
        enabled: channel.status === ChannelStatus.enabled ? 1 : 0,
        priority: channel.priority,
        weight: channel.weight,
        tag: channel.tag,
      });
    }
  }
  return rows;
}

/**
 * Replaces the abilities of the given channels (or of every channel) with the ones their rows
 * describe now. Call inside the transaction that changed the channels.
 */
export async function rebuildAbilities(db: Db, channelIds: number[] | 'all'): Promise<void> {
  if (channelIds === 'all') {
    await db.deleteFrom('abilities').execute();
    const all = await db.selectFrom('channels').select('id').execute();
    channelIds = all.map((row) => row.id);
  } else {
    for (const ids of chunks(channelIds)) await db.deleteFrom('abilities').where('channel_id', 'in', ids).execute();
  }
  for (const ids of chunks(channelIds)) {
    const channels = await db
      .selectFrom('channels')
      .select(['id', 'models', 'group', 'status', 'priority', 'weight', 'tag'])
      .where('id', 'in', ids)
      .execute();
    const rows = channels.flatMap(abilitiesOf);
    for (const batch of chunks(rows, 200)) await db.insertInto('abilities').values(batch).execute();
  }
}

export { chunks };
