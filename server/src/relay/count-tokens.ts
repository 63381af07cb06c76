import { countChatPromptTokens, countTextTokens } from './billing/token-count.js';
import { relayErrors } from './errors.js';
import type { InboundFormat } from './formats/types.js';
import type { JsonBody } from './jobs/json-body.js';
import { checkModelAllowed, type RelayCaller } from './pipeline/authenticate.js';
import { targetOf } from './upstream/dispatch.js';
import type { AdapterOptions, ChatCall, UpstreamRequest } from './providers/types.js';
import { sendUpstream } from './providers/upstream-request.js';
import type { RelayState } from './state.js';

/** The provider's count gets this long; then the local count answers. */
const upstreamCountTimeoutMs = 10_000;

/** The local count of a canonical chat body: messages as OpenAI frames them, tool calls and tool definitions as JSON. */
export function countCanonicalPrompt(canonical: JsonBody): number {
  let total = countChatPromptTokens(canonical.messages);
  for (const message of Array.isArray(canonical.messages) ? (canonical.messages as JsonBody[]) : []) {
    if (message && Array.isArray(message.tool_calls)) total += countTextTokens(JSON.stringify(message.tool_calls));
  }
  if (Array.isArray(canonical.tools) && canonical.tools.length > 0) total += countTextTokens(JSON.stringify(canonical.tools));
  return total;
}

const isPlainObject = (value: unknown): value is JsonBody =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof FormData);

/**
 * The prompt tokens of a request in an inbound format (Anthropic count_tokens, Gemini countTokens),
 * not billed: counted by the provider when the channel that would serve the model can count (a
 * Claude or Gemini channel; the request converted to its wire when the client speaks another),
 * locally otherwise, and locally when the provider's count fails or is slow (never an error for
 * that). The caller must be allowed the model; the format's own 400s stand.
 */
export async function countPromptTokens(
  relay: RelayState,
  options: AdapterOptions,
  caller: RelayCaller,
  request: {
    format: InboundFormat;
    body: JsonBody;
    params: Record<string, string>;
    clientHeaders?: Record<string, string>;
  },
): Promise<number> {
  const { format, body, params } = request;
  const model = format.modelOf(body, params).trim();
  if (!model) throw relayErrors.badRequest('model 不能为空', 'model_required');
  checkModelAllowed(caller, model);
  const canonical: JsonBody = { ...format.toOpenAI(body, params), model, stream: false };
  const counted = await countUpstream(relay, options, caller, model, request, canonical).catch(() => null);
  return counted ?? countCanonicalPrompt(canonical);
}

async function countUpstream(
  relay: RelayState,
  options: AdapterOptions,
  caller: RelayCaller,
  model: string,
  request: { format: InboundFormat; body: JsonBody; clientHeaders?: Record<string, string> },
  canonical: JsonBody,
): Promise<number | null> {
  const group = caller.autoGroups?.find((candidate) => relay.channels.hasModel(candidate, model)) ?? caller.group;
  const channel =
    caller.pinnedChannelId !== null ? relay.channels.findById(caller.pinnedChannelId) : relay.channels.select(group, model, new Set());
  const adapter = channel?.adapter;
  const native = adapter?.native;
  if (!channel || !adapter || !native?.countTokens) return null;
  const upstreamModel = channel.modelMapping?.[model] || model;
  const call: ChatCall = { upstreamModel, isStream: false, target: targetOf(channel, relay.dispatcher, request.clientHeaders), options };
  const speaksNatively = request.format.wire === native.format && (native.accepts?.(upstreamModel) ?? true);
  let chat: UpstreamRequest | null = null;
  if (speaksNatively) chat = await native.buildRequest(request.body, call);
  else if (adapter.chatConverter) chat = await adapter.chatConverter.buildRequest({ ...canonical, model: upstreamModel }, call);
  if (!chat || !isPlainObject(chat.body)) return null;
  const response = await sendUpstream(adapter, native.countTokens.request(chat), {
    dispatcher: relay.dispatcher,
    signal: AbortSignal.timeout(upstreamCountTimeoutMs),
    headersTimeout: upstreamCountTimeoutMs,
    bodyTimeout: upstreamCountTimeoutMs,
  });
  const text = await readBounded(response.body);
  if (response.statusCode < 200 || response.statusCode >= 300 || text === null) return null;
  const json: unknown = JSON.parse(text);
  return isPlainObject(json) ? native.countTokens.read(json) : null;
}

/** A count answer is small: more than this is not one (read to the end so the connection is reused, but not kept). */
const maxCountAnswerBytes = 64 * 1024;

async function readBounded(body: AsyncIterable<Uint8Array>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size <= maxCountAnswerBytes) chunks.push(Buffer.from(chunk));
  }
  return size <= maxCountAnswerBytes ? Buffer.concat(chunks).toString('utf8') : null;
}
