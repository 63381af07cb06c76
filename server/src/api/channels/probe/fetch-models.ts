import { request } from 'undici';
import type { AppContext } from '../../context.js';
import { invalidInput } from '../../../lib/errors.js';
import { adapterForType } from '../../../relay/providers/registry.js';
import { loadRelayChannel } from './load-channel.js';

/**
 * The adapter's own model list when it has one (Gemini, Ollama, Cohere, Azure, Cloudflare), else
 * GET {base}/v1/models (OpenAI shape, `data[].id`). `other` is the channel's (region, account id).
 */
export async function fetchUpstreamModels(ctx: AppContext, type: number, baseURL: string, key: string, other = ''): Promise<string[]> {
  const adapter = adapterForType(type);
  if (!adapter) throw invalidInput(`渠道类型 ${type} 暂不支持获取模型列表`);
  const dispatcher = ctx.relay!.dispatcher;
  const target = { baseURL: baseURL || adapter.meta.defaultBaseURL, key: key.split('\n')[0]?.trim() ?? '', headers: {}, other, dispatcher };
  if (adapter.fetchModels) {
    try {
      return await adapter.fetchModels(target);
    } catch (error) {
      throw invalidInput(`获取模型列表失败：${(error as Error).message}`);
    }
  }
  if (!target.baseURL) throw invalidInput('请填写 base_url');
  let response;
  try {
    response = await request(adapter.api.url('models', target, ''), { method: 'GET', headers: adapter.api.headers(target), dispatcher, headersTimeout: 20_000, bodyTimeout: 20_000 });
  } catch (error) {
    throw invalidInput(`获取模型列表失败：${(error as Error).message}`);
  }
  const text = await response.body.text();
  if (response.statusCode !== 200) throw invalidInput(`获取模型列表失败：${adapter.errors.parse(response.statusCode, text).message}`);
  let parsed: { data?: Array<{ id?: unknown }> };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw invalidInput('获取模型列表失败：上游返回的不是 JSON');
  }
  return (parsed.data ?? []).map((model) => model.id).filter((id): id is string => typeof id === 'string');
}

export async function fetchChannelModels(ctx: AppContext, id: number): Promise<string[]> {
  const channel = await loadRelayChannel(ctx, id);
  return fetchUpstreamModels(ctx, channel.type, channel.baseURL, channel.keys[0] ?? '', channel.other);
}
