import type { AppContext } from '../../../context.js';

import type { RelayFacade } from '../../../relay/facade.js';
import { disableChannel, enableChannel, isKeyFailure, redactSecrets, type AdapterOptions, type UpstreamError } from '../../../relay/probes.js';
import { loadRelayChannel } from './load-channel.js';

export interface ChannelTestResult {
  success: boolean;
  message: string;
  /** Seconds. */
  time: number;
}

/**
 * Sends one small request through the channel like a relayed call (relay/probes.ts: chat, or
 * embeddings for embedding models, converted and read through the adapter), records
 * response_time (ms) and test_time, and applies the automatic enable/disable rules.
 */
export async function testChannel(ctx: AppContext, relay: RelayFacade, id: number, requestedModel?: string): Promise<ChannelTestResult> {
  const channel = await loadRelayChannel(ctx, id);
  const adapter = channel.adapter;
  if (!adapter) return { success: false, message: `渠道类型 ${channel.type} 暂不支持测试`, time: 0 };
  const model = requestedModel || channel.testModel || channel.models[0] || 'gpt-4o-mini';
  const started = Date.now();
  const error: UpstreamError | null = await relay.probeChannel(channel, model, ctx.options as unknown as AdapterOptions);
  const elapsedMs = Date.now() - started;
  const seconds = Math.round(elapsedMs) / 1000;
  await ctx.storage.db.updateTable('channels')
    .set({ response_time: elapsedMs, test_time: Math.floor(Date.now() / 1000) })
    .where('id', '=', id).execute();

  const canDisable = ctx.options.bool('AutomaticDisableChannelEnabled') && channel.isAutoBan && channel.status === 1;
  if (error) {
    // Admins see the upstream's reason, but never a key the provider echoed back (keys are the root's alone).
    const reason = redactSecrets(error.message);
    if (canDisable && isKeyFailure(ctx, error)) await disableChannel(ctx, id, `测试失败 status ${error.upstreamStatus}: ${reason}`.slice(0, 500));
    return { success: false, message: reason, time: seconds };
  }
  const threshold = ctx.options.number('ChannelDisableThreshold');
  if (canDisable && threshold > 0 && seconds > threshold) {
    await disableChannel(ctx, id, `响应时间 ${seconds.toFixed(2)}s 超过阈值 ${threshold}s`);
    return { success: false, message: `响应时间 ${seconds.toFixed(2)}s 超过阈值 ${threshold}s`, time: seconds };
  }
  if (channel.status === 3 && ctx.options.bool('AutomaticEnableChannelEnabled')) await enableChannel(ctx, id);
  return { success: true, message: '', time: seconds };
}

let isTestingAll = false;

/** Tests every channel that is enabled or auto-disabled, one after another, in the background. */
export function testAllChannels(ctx: AppContext, relay: RelayFacade, log: (error: unknown) => void): boolean {
  if (isTestingAll) return false;
  isTestingAll = true;
  void (async () => {
    const rows = await ctx.storage.db.selectFrom('channels').select('id').where('status', 'in', [1, 3]).execute();
    for (const row of rows) await testChannel(ctx, relay, row.id).catch(log);
  })().catch(log).finally(() => {
    isTestingAll = false;
  });
  return true;
}
