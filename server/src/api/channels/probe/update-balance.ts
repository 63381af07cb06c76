import type { AppContext } from '../../../context.js';
import { invalidInput } from '../../../lib/errors.js';
import type { RelayFacade } from '../../../relay/facade.js';
import { disableChannel } from '../../../relay/probes.js';
import { recordChannelStatusChange, type ChannelStatusChange } from './channel-status-log.js';
import { loadRelayChannel } from './load-channel.js';

type LoadedChannel = Awaited<ReturnType<typeof loadRelayChannel>>;

/** Stores a balance read from the provider on the channel. */
async function storeBalance(ctx: AppContext, id: number, balance: number): Promise<void> {
  await ctx.storage.db
    .updateTable('channels')
    .set({ balance, balance_updated_time: Math.floor(Date.now() / 1000) })
    .where('id', '=', id)
    .execute();
}

/** Reads the provider's balance and stores it on the channel. */
export async function updateChannelBalance(ctx: AppContext, relay: RelayFacade, id: number): Promise<number> {
  const channel = await loadRelayChannel(ctx, id);
  let balance: number | null;
  // Only the provider's answer is the admin's 400; a failing write of it is ours (500, logged).
  try {
    balance = await relay.readUpstreamBalance(channel);
  } catch (error) {
    throw invalidInput(`查询余额失败：${(error as Error).message}`);
  }
  if (balance === null) throw invalidInput('该渠道类型暂不支持查询余额');
  await storeBalance(ctx, channel.id, balance);
  return balance;
}

export interface BalanceRefresh {
  /** Channels whose balance was read and stored. */
  updated: number;
  /** Channels whose provider has a balance API that failed. */
  failed: number;
  /** Channels disabled because their balance ran out. */
  changes: ChannelStatusChange[];
}

/**
 * Updates every enabled channel whose provider exposes a balance. As in new-api, a channel whose
 * balance is 0 or less is disabled (auto-disabled, reason 余额不足) when AutomaticDisableChannelEnabled
 * is on and the channel has auto_ban. Stops between channels once `signal` is aborted.
 */
export async function refreshAllBalances(ctx: AppContext, relay: RelayFacade, signal?: AbortSignal): Promise<BalanceRefresh> {
  const rows = await ctx.storage.db.selectFrom('channels').select('id').where('status', '=', 1).orderBy('id').execute();
  const refresh: BalanceRefresh = { updated: 0, failed: 0, changes: [] };
  for (const row of rows) {
    if (signal?.aborted) break;
    let channel: LoadedChannel;
    let balance: number;
    try {
      channel = await loadRelayChannel(ctx, row.id);
      if (!channel.adapter?.fetchBalance) continue;
      const read = await relay.readUpstreamBalance(channel);
      if (read === null) continue;
      balance = read;
      await storeBalance(ctx, channel.id, balance);
    } catch {
      refresh.failed += 1;
      continue;
    }
    refresh.updated += 1;
    const canDisable = ctx.options.bool('AutomaticDisableChannelEnabled') && channel.isAutoBan;
    if (balance > 0 || !canDisable) continue;
    const reason = `余额不足（${balance}）`;
    if (!(await disableChannel(ctx, channel.id, reason))) continue;
    const change = { channelId: channel.id, channelName: channel.name, isEnabled: false, reason };
    await recordChannelStatusChange(ctx, change);
    refresh.changes.push(change);
  }
  return refresh;
}

/** GET /api/channel/update_balance: how many channels were updated (refreshAllBalances). */
export async function updateAllBalances(ctx: AppContext, relay: RelayFacade): Promise<number> {
  return (await refreshAllBalances(ctx, relay)).updated;
}
