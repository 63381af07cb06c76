import type { AppContext } from '../../../context.js';
import { notFound } from '../../../lib/errors.js';
import { toRelayChannel, type RelayChannel } from '../../../relay/probes.js';

/** A channel row (any status) in the relay's parsed form. */
export async function loadRelayChannel(ctx: AppContext, id: number): Promise<RelayChannel & { testModel: string; status: number }> {
  const row = await ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('渠道不存在');
  return { ...toRelayChannel(row), testModel: row.test_model };
}
