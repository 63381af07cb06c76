import type { AppContext } from '../../../context.js';
import type { RelayFacade } from '../../../relay/facade.js';
import {
  disableChannel,
  enableChannel,
  isKeyFailure,
  redactSecrets,
  type AdapterOptions,
  type UpstreamError,
} from '../../../relay/probes.js';
import { recordChannelStatusChange, type ChannelStatusChange } from './channel-status-log.js';
import { loadRelayChannel } from './load-channel.js';

export interface ChannelTestResult {
  success: boolean;
  message: string;
  /** Seconds. */
  time: number;
}

/** A test's answer to the admin, and the status change it made (null when none). */
export interface ChannelTestOutcome {
  result: ChannelTestResult;
  change: ChannelStatusChange | null;
}

/**
 * Sends one small request through the channel like a relayed call (relay/probes.ts: chat, or
 * embeddings for embedding models, converted and read through the adapter), records
 * response_time (ms) and test_time, and applies the automatic enable/disable rules: an enabled
 * auto_ban channel that fails with a key error or answers slower than ChannelDisableThreshold is
 * disabled (AutomaticDisableChannelEnabled), an auto-disabled one that passes is enabled again
 * (AutomaticEnableChannelEnabled). A change is written to the system log. A channel an admin
 * disabled by hand is never changed. With `statuses`, a channel whose status (read just before the
 * test) is not one of them is not tested (null).
 */
export async function runChannelTest(
  ctx: AppContext,
  relay: RelayFacade,
  id: number,
  options: { model?: string; statuses?: readonly number[] } = {},
): Promise<ChannelTestOutcome | null> {
  const channel = await loadRelayChannel(ctx, id);
  if (options.statuses && !options.statuses.includes(channel.status)) return null;
  const adapter = channel.adapter;
  if (!adapter) return { result: { success: false, message: `渠道类型 ${channel.type} 暂不支持测试`, time: 0 }, change: null };
  const model = options.model || channel.testModel || channel.models[0] || 'gpt-4o-mini';
  const started = Date.now();
  const error: UpstreamError | null = await relay.probeChannel(channel, model, ctx.options as unknown as AdapterOptions);
  const elapsedMs = Date.now() - started;
  const seconds = Math.round(elapsedMs) / 1000;
  await ctx.storage.db
    .updateTable('channels')
    .set({ response_time: elapsedMs, test_time: Math.floor(Date.now() / 1000) })
    .where('id', '=', id)
    .execute();

  const canDisable = ctx.options.bool('AutomaticDisableChannelEnabled') && channel.isAutoBan && channel.status === 1;
  const disable = async (reason: string): Promise<ChannelStatusChange | null> => {
    if (!(await disableChannel(ctx, id, reason))) return null;
    const change = { channelId: id, channelName: channel.name, isEnabled: false, reason };
    await recordChannelStatusChange(ctx, change);
    return change;
  };
  if (error) {
    // Admins see the upstream's reason, but never a key the provider echoed back (keys are the root's alone).
    const reason = redactSecrets(error.message);
    const change =
      canDisable && isKeyFailure(ctx, error) ? await disable(`测试失败 status ${error.upstreamStatus}: ${reason}`.slice(0, 500)) : null;
    return { result: { success: false, message: reason, time: seconds }, change };
  }
  const threshold = ctx.options.number('ChannelDisableThreshold');
  if (canDisable && threshold > 0 && seconds > threshold) {
    const message = `响应时间 ${seconds.toFixed(2)}s 超过阈值 ${threshold}s`;
    return { result: { success: false, message, time: seconds }, change: await disable(message) };
  }
  let change: ChannelStatusChange | null = null;
  if (channel.status === 3 && ctx.options.bool('AutomaticEnableChannelEnabled') && (await enableChannel(ctx, id))) {
    change = { channelId: id, channelName: channel.name, isEnabled: true, reason: '' };
    await recordChannelStatusChange(ctx, change);
  }
  return { result: { success: true, message: '', time: seconds }, change };
}

/** GET /api/channel/test/:id: the test's answer (runChannelTest). */
export async function testChannel(ctx: AppContext, relay: RelayFacade, id: number, requestedModel?: string): Promise<ChannelTestResult> {
  return (await runChannelTest(ctx, relay, id, { model: requestedModel }))!.result;
}

let isTestingAll = false;

/** Tests every channel that is enabled or auto-disabled, one after another, in the background. */
export function testAllChannels(ctx: AppContext, relay: RelayFacade, log: (error: unknown) => void): boolean {
  if (isTestingAll) return false;
  isTestingAll = true;
  void (async () => {
    const rows = await ctx.storage.db.selectFrom('channels').select('id').where('status', 'in', [1, 3]).execute();
    for (const row of rows) await testChannel(ctx, relay, row.id).catch(log);
  })()
    .catch(log)
    .finally(() => {
      isTestingAll = false;
    });
  return true;
}
