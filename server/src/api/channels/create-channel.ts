import { channelDefaults, splitChannelKeys, type CreateChannelInput } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { invalidInput } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { rebuildAbilities } from './abilities.js';
import { applyTypeDefaults, channelValuesOf } from './channel-values.js';
import { findUnpricedModels } from './unpriced-models.js';
import { checkChannelTypeSupported, checkChannelValues } from './validate-channel.js';

const maxBatchKeys = 1000;

/**
 * POST /api/channel/: one channel, or in batch mode one per key line; abilities written in the same
 * transaction. Answers the new ids and the channel's models that have no price (findUnpricedModels).
 */
export async function createChannels(ctx: AppContext, input: CreateChannelInput): Promise<{ ids: number[]; unpriced_models: string[] }> {
  const type = input.type ?? channelDefaults.type;
  checkChannelTypeSupported(type);
  const keys = splitChannelKeys(type, input.key ?? '', input.mode === 'batch') ?? [];
  if (keys.length === 0) throw invalidInput('请填写渠道名称和渠道密钥！');
  if (keys.length > maxBatchKeys) throw invalidInput(`批量添加一次最多 ${maxBatchKeys} 个密钥`);
  const base = applyTypeDefaults(
    {
      type,
      auto_ban: channelDefaults.autoBan,
      group: channelDefaults.groups.join(','),
      priority: channelDefaults.priority,
      weight: channelDefaults.weight,
      ...channelValuesOf(input),
      created_time: nowSeconds(),
    },
    type,
  );
  for (const key of keys) checkChannelValues(type, key, String(base.other ?? ''), String(base.base_url ?? ''));
  const ids = await ctx.storage.db.transaction().execute(async (trx) => {
    const storage = { ...ctx.storage, db: trx };
    const created: number[] = [];
    for (const key of keys) created.push(await insertReturningId(storage, 'channels', { ...base, key }));
    await rebuildAbilities(trx, created);
    return created;
  });
  await ctx.bus.publish('channels');
  return { ids, unpriced_models: findUnpricedModels(ctx, String(base.models ?? '')) };
}
