import { request } from 'undici';
import type { AppContext } from '../../context.js';
import { redactSecrets, UpstreamError } from '../../../relay/errors.js';
import { disableChannel, enableChannel, isKeyFailure } from '../../../relay/pipeline/auto-disable.js';
import { targetOf } from '../../../relay/pipeline/dispatch.js';
import { loadRelayChannel } from './load-channel.js';

export interface ChannelTestResult {
  success: boolean;
  message: string;
  /** Seconds. */
  time: number;
}

const isEmbeddingModel = (model: string) => /embed|bge-|m3e/i.test(model);

/**
 * Sends one small request through the channel (chat, or embeddings for embedding models),
 * records response_time (ms) and test_time, and applies the automatic enable/disable rules.
 */
export async function testChannel(ctx: AppContext, id: number, requestedModel?: string): Promise<ChannelTestResult> {
  const channel = await loadRelayChannel(ctx, id);
  const adapter = channel.adapter;
  if (!adapter) return { success: false, message: `渠道类型 ${channel.type} 暂不支持测试`, time: 0 };
  const model = requestedModel || channel.testModel || channel.models[0] || 'gpt-4o-mini';
  const upstreamModel = channel.modelMapping?.[model] || model;
  const endpoint = isEmbeddingModel(model) && adapter.endpoints.has('embeddings') ? 'embeddings' : 'chat';
  const body = endpoint === 'embeddings'
    ? { model: upstreamModel, input: 'hello' }
    : { model: upstreamModel, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 };
  const dispatcher = ctx.relay!.dispatcher;
  const target = targetOf(channel, dispatcher);
  const started = Date.now();
  let error: UpstreamError | null = null;
  try {
    const response = await request(adapter.api.url(endpoint, target, upstreamModel), {
      method: 'POST',
      headers: { ...adapter.api.headers(target), 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) {
      const parsed = adapter.errors.parse(response.statusCode, text);
      error = new UpstreamError(response.statusCode, parsed.message, parsed.code, text);
    }
  } catch (cause) {
    error = new UpstreamError(0, `上游连接失败：${(cause as Error).message}`, null, '');
  }
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
export function testAllChannels(ctx: AppContext, log: (error: unknown) => void): boolean {
  if (isTestingAll) return false;
  isTestingAll = true;
  void (async () => {
    const rows = await ctx.storage.db.selectFrom('channels').select('id').where('status', 'in', [1, 3]).execute();
    for (const row of rows) await testChannel(ctx, row.id).catch(log);
  })().catch(log).finally(() => {
    isTestingAll = false;
  });
  return true;
}
