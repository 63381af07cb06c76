import type { AppContext } from '../../../context.js';
import { invalidInput } from '../../../lib/errors.js';
import type { RelayFacade } from '../../../relay/facade.js';
import { loadRelayChannel } from './load-channel.js';

/** Reads the provider's balance (providers.md §6) and stores it on the channel. */
export async function updateChannelBalance(ctx: AppContext, relay: RelayFacade, id: number): Promise<number> {
  const channel = await loadRelayChannel(ctx, id);
  let balance: number | null;
  try {
    balance = await relay.readUpstreamBalance(channel);
  } catch (error) {
    throw invalidInput(`查询余额失败：${(error as Error).message}`);
  }
  if (balance === null) throw invalidInput('该渠道类型暂不支持查询余额');
  await ctx.storage.db.updateTable('channels')
    .set({ balance, balance_updated_time: Math.floor(Date.now() / 1000) })
    .where('id', '=', id).execute();
  return balance;
}

/** Updates every enabled channel whose provider exposes a balance; returns how many succeeded. */
export async function updateAllBalances(ctx: AppContext, relay: RelayFacade): Promise<number> {
  const rows = await ctx.storage.db.selectFrom('channels').select('id').where('status', '=', 1).execute();
  let updated = 0;
  for (const row of rows) {
    try {
      await updateChannelBalance(ctx, relay, row.id);
      updated += 1;
    } catch {
      // channels without a balance API or with a failing one are skipped
    }
  }
  return updated;
}
