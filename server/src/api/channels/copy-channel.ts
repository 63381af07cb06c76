import { channelMessages } from '@modelgate/shared';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import { notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { rebuildAbilities } from './abilities.js';
import { checkChannelTypeSupported } from './validate-channel.js';

export interface CopyChannelOptions {
  suffix?: string;
  /** Zero the copy's balance and used quota (the default). */
  isBalanceReset: boolean;
}

/** POST /api/channel/copy/:id: a new channel with the name suffixed `_复制` and fresh test results. */
export async function copyChannel(ctx: AppContext, id: number, options: CopyChannelOptions): Promise<{ id: number }> {
  const newId = await ctx.storage.db.transaction().execute(async (trx) => {
    const source = await trx.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
    if (!source) throw notFound(channelMessages.copyNotFound);
    checkChannelTypeSupported(source.type);
    const { id: _sourceId, ...fields } = source;
    const copy = {
      ...fields,
      name: `${source.name}${options.suffix ?? '_复制'}`.slice(0, 191),
      created_time: nowSeconds(),
      test_time: 0,
      response_time: 0,
      ...(options.isBalanceReset ? { balance: 0, used_quota: 0, balance_updated_time: 0 } : {}),
    };
    const created = await insertReturningId({ ...ctx.storage, db: trx }, 'channels', copy);
    await rebuildAbilities(trx, [created]);
    return created;
  });
  await ctx.bus.publish('channels');
  return { id: newId };
}
