import { ChannelStatus, jsonObjectText, toInteger, toNameList, type EditChannelTagInput } from '@modelgate/shared';
import { invalidInput, notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { chunks, rebuildAbilities } from './abilities.js';
import type { ChannelValues } from './channel-values.js';
import { checkTypesCanBeEnabled } from './validate-channel.js';

const tagNotFound = () => notFound('该标签下没有渠道');

/** POST /api/channel/batch/tag: sets (or with an empty tag clears) the tag of the chosen channels. */
export async function setChannelsTag(ctx: AppContext, ids: number[], tag: string | null | undefined): Promise<number> {
  const unique = [...new Set(ids)];
  const value = tag?.trim() ?? '';
  const count = await ctx.storage.db.transaction().execute(async (trx) => {
    let changed = 0;
    for (const batch of chunks(unique)) {
      const result = await trx.updateTable('channels').set({ tag: value }).where('id', 'in', batch).executeTakeFirst();
      changed += Number(result.numUpdatedRows);
    }
    await rebuildAbilities(trx, unique);
    return changed;
  });
  await ctx.bus.publish('channels');
  return count;
}

async function updateTag(ctx: AppContext, tag: string, values: ChannelValues): Promise<number> {
  const count = await ctx.storage.db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('channels').select(['id', 'type']).where('tag', '=', tag).execute();
    if (rows.length === 0) throw tagNotFound();
    if (values.status === ChannelStatus.enabled) checkTypesCanBeEnabled(rows.map((row) => row.type));
    const ids = rows.map((row) => row.id);
    for (const batch of chunks(ids)) await trx.updateTable('channels').set(values).where('id', 'in', batch).execute();
    await rebuildAbilities(trx, ids);
    return ids.length;
  });
  await ctx.bus.publish('channels');
  return count;
}

/** PUT /api/channel/tag: edits every channel of the tag; an empty new_tag dissolves it. */
export async function editChannelTag(ctx: AppContext, input: EditChannelTagInput): Promise<number> {
  const values: ChannelValues = {};
  if (input.new_tag !== undefined && input.new_tag !== null) values.tag = input.new_tag.trim();
  if (input.model_mapping !== undefined && input.model_mapping !== null) {
    values.model_mapping = jsonObjectText(input.model_mapping) ?? '';
  }
  if (input.models !== undefined && input.models !== null) values.models = toNameList(input.models).join(',');
  if (input.groups !== undefined && input.groups !== null) {
    const groups = toNameList(input.groups);
    if (groups.length === 0) throw invalidInput('请至少选择一个分组！');
    values.group = groups.join(',');
  }
  const priority = toInteger(input.priority);
  if (priority !== null) values.priority = priority;
  const weight = toInteger(input.weight);
  if (weight !== null) values.weight = weight;
  return updateTag(ctx, input.tag, values);
}

/** POST /api/channel/tag/enabled and /tag/disabled: enables (1) or manually disables (2) every channel of the tag. */
export async function setTagStatus(ctx: AppContext, tag: string, isEnabled: boolean): Promise<number> {
  return updateTag(ctx, tag, { status: isEnabled ? ChannelStatus.enabled : ChannelStatus.manuallyDisabled });
}
