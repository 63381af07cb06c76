import { UpstreamError } from './errors.js';
import { createFramingDecoder } from './stream/framing.js';
import { targetOf, upstreamFailure } from './upstream/dispatch.js';
import type { RelayChannel } from './routing/channel-index.js';
import { adapterForType } from './providers/registry.js';
import type {
  AdapterOptions,
  ChatCall,
  ChatConverter,
  ProviderAdapter,
  RelayEndpoint,
  UpstreamResponse,
  UpstreamTarget,
} from './providers/types.js';
import { buildUpstreamRequest, getUpstreamJson, modelListRequest, namesIn, sendUpstream } from './providers/upstream-request.js';
import type { RelayState } from './state.js';
import type { Json } from '@modelgate/shared';

/**
 * The relay's public entry for the admin probes (channel test, fetch models, balance): they reach
 * a provider only through the one upstream request path (providers/upstream-request.ts), and read
 * its answer through the adapter, exactly as a relayed call would be.
 */

/** Probe calls give up after a minute (a healthy channel answers "hi" in a few seconds). */
const probeTimeoutMs = 60_000;
const maxErrorText = 64 * 1024;

const isEmbeddingModel = (model: string) => /embed|bge-|m3e/i.test(model);

/** The endpoint a channel test uses: chat, or embeddings for embedding models (and embedding-only providers). */
function probeEndpoint(adapter: ProviderAdapter, model: string): RelayEndpoint | null {
  const canEmbed = adapter.endpoints.has('embeddings');
  if (canEmbed && (isEmbeddingModel(model) || !adapter.endpoints.has('chat'))) return 'embeddings';
  return adapter.endpoints.has('chat') ? 'chat' : null;
}

async function readText(response: UpstreamResponse, limit: number): Promise<string> {
  let text = '';
  for await (const chunk of response.body) {
    if (text.length < limit) text += Buffer.from(chunk).toString('utf8');
  }
  return text.slice(0, limit);
}

function parseJson(text: string): Json {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Json;
  } catch {
    // reported below
  }
  throw new UpstreamError(502, `上游返回的不是 JSON：${text.slice(0, 200)}`, 'upstream_bad_response', text);
}

/**
 * Runs the adapter's reading of an answer. An answer it cannot read (`candidates: [null]`, say) is the
 * upstream's bad answer, as the relay reports it (pipeline/respond.ts), not a connection failure and
 * not the reader's own exception text.
 */
function readAnswer<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(502, '上游响应无法解析', 'upstream_bad_response', '');
  }
}

/** Reads a converted stream to its end; an error event throws (UpstreamError) as in the relay. */
async function readConvertedStream(converter: ChatConverter, response: UpstreamResponse, model: string): Promise<void> {
  const decoder = createFramingDecoder(converter.framing);
  const transform = readAnswer(() => converter.createStreamTransform(model));
  for await (const chunk of response.body) {
    readAnswer(() => {
      for (const event of decoder.push(chunk)) transform.onEvent(event);
    });
  }
  readAnswer(() => {
    for (const event of decoder.finish()) transform.onEvent(event);
    transform.finish();
  });
}

/** An OpenAI-wire answer that is not an answer (`{"error": …}` on a 2xx) is a failure. */
function checkOpenAiAnswer(adapter: ProviderAdapter, text: string): void {
  const json = parseJson(text);
  if (json.error !== undefined && json.error !== null) {
    const parsed = adapter.errors.parse(502, text);
    throw new UpstreamError(502, parsed.message, parsed.code, text);
  }
}

/**
 * Sends one small request through a channel like a relayed call (converted to the provider's wire,
 * signed, over its transport) and reads the answer through the adapter. Resolves null when the
 * channel answered well, else the failure (status, message) as the relay would see it.
 */
export async function probeChannel(
  relay: RelayState,
  channel: RelayChannel,
  model: string,
  options: AdapterOptions,
): Promise<UpstreamError | null> {
  const adapter = channel.adapter;
  if (!adapter) return new UpstreamError(400, `渠道类型 ${channel.type} 暂不支持`, 'unsupported_channel_type', '');
  const endpoint = probeEndpoint(adapter, model);
  if (!endpoint && adapter.checkHealth) {
    try {
      await adapter.checkHealth(targetOf(channel, relay.dispatcher));
      return null;
    } catch (error) {
      return error instanceof UpstreamError ? error : new UpstreamError(0, `上游连接失败：${(error as Error).message}`, null, '');
    }
  }
  if (!endpoint) return new UpstreamError(400, `渠道类型 ${channel.type} 不支持对话或向量接口，无法测试`, 'unsupported_endpoint', '');
  const upstreamModel = channel.modelMapping?.[model] || model;
  const converter = endpoint === 'chat' ? adapter.chatConverter : undefined;
  const call: ChatCall = { upstreamModel, isStream: false, target: targetOf(channel, relay.dispatcher), options };
  // An upstream that only streams (Spark, Dify agents) is read as a stream, as the relay aggregates it.
  call.isStream = converter?.isStreamOnly?.(call) === true && !converter.isStreamingUnsupported;
  const body: Json =
    endpoint === 'embeddings'
      ? { model: upstreamModel, input: 'hello' }
      : { model: upstreamModel, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, stream: call.isStream };
  if (endpoint === 'chat' && !converter) {
    delete body.stream;
    adapter.chat.prepareBody(body);
  }
  try {
    const built = await buildUpstreamRequest(adapter, endpoint, body, call);
    const response = await sendUpstream(adapter, built, {
      dispatcher: relay.dispatcher,
      signal: AbortSignal.timeout(probeTimeoutMs),
      headersTimeout: probeTimeoutMs,
      bodyTimeout: probeTimeoutMs,
    });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      return upstreamFailure(adapter, response.statusCode, await readText(response, maxErrorText).catch(() => ''));
    }
    if (converter && call.isStream) {
      await readConvertedStream(converter, response, model);
    } else if (converter) {
      const json = parseJson(await response.body.text());
      readAnswer(() => converter.parseResponse(json, model));
    } else if (endpoint === 'embeddings' && adapter.embeddingsConverter) {
      const { embeddingsConverter } = adapter;
      const json = parseJson(await response.body.text());
      readAnswer(() => embeddingsConverter.parseResponse(json, model));
    } else {
      checkOpenAiAnswer(adapter, await response.body.text());
    }
    return null;
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    return new UpstreamError(0, `上游连接失败：${(error as Error).message}`, null, '');
  }
}

/** What fetch-models needs of a channel, saved or not. */
export interface ModelListSource {
  type: number;
  baseURL: string;
  key: string;
  other: string;
}

/**
 * The provider's model names: its own list when it has one (Gemini, Ollama, Cohere, Azure,
 * Cloudflare), else the OpenAI-shaped `GET …/models` of the one request path. Throws an Error
 * whose message is shown to the admin.
 */
export async function listUpstreamModels(relay: RelayState, source: ModelListSource): Promise<string[]> {
  const adapter = adapterForType(source.type);
  if (!adapter) throw new Error(`渠道类型 ${source.type} 暂不支持获取模型列表`);
  const target: UpstreamTarget = {
    baseURL: source.baseURL || adapter.meta.defaultBaseURL,
    key: source.key.split('\n')[0]?.trim() ?? '',
    headers: {},
    other: source.other,
    dispatcher: relay.dispatcher,
  };
  if (adapter.fetchModels) return adapter.fetchModels(target);
  if (!target.baseURL) throw new Error('请填写 base_url');
  const { url, headers } = modelListRequest(adapter, target);
  return namesIn((await getUpstreamJson(url, headers, target, adapter.errors.parse)).data, 'id');
}

/** The provider's remaining balance in US$, or null when its type has no balance API. */
export async function readUpstreamBalance(relay: RelayState, channel: RelayChannel): Promise<number | null> {
  const fetchBalance = channel.adapter?.fetchBalance;
  if (!fetchBalance) return null;
  return fetchBalance(targetOf(channel, relay.dispatcher));
}

export { disableChannel, enableChannel, isKeyFailure } from './routing/auto-disable.js';
export { toRelayChannel, type RelayChannel } from './routing/channel-index.js';
export { redactSecrets, type UpstreamError } from './errors.js';
export type { AdapterOptions } from './providers/types.js';
