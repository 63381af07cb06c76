import type { RelayChannel } from '../routing/channel-index.js';
import type { ChannelCall, UpstreamBody } from '../upstream/dispatch.js';
import { estimateTextTokens, imagePartTokens, messageFramingTokens } from '../billing/token-count.js';
import { relayErrors } from '../errors.js';
import type { Json } from '@modelgate/shared';

/** A relay request body: a JSON object. */
export type JsonBody = Json;

/** The request body as an object, or a 400. */
export function requireObject(body: unknown): JsonBody {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw relayErrors.badRequest('请求体必须是 JSON 对象', 'invalid_request');
  return body as JsonBody;
}

export function requireModel(body: JsonBody, fallback?: string): string {
  const model = typeof body.model === 'string' ? body.model.trim() : '';
  if (model) return model;
  if (fallback) return fallback;
  throw relayErrors.badRequest('model 不能为空', 'model_required');
}

/**
 * The body sent to one channel: the client's body with the mapped model and the channel's
 * param_override merged over it; `adapt` applies endpoint and provider rules.
 */
export function channelJsonBody(body: JsonBody, adapt?: (out: JsonBody, channel: RelayChannel) => void) {
  return (channel: RelayChannel, { upstreamModel }: Pick<ChannelCall, 'upstreamModel'>): UpstreamBody => {
    // Object.assign, not a spread: spreading a parsed body and then adding keys was the slower
    // path on every call (a profile showed it beside the JSON.stringify of the same body).
    const out: JsonBody = Object.assign({}, body);
    out.model = upstreamModel;
    if (channel.paramOverride) Object.assign(out, channel.paramOverride);
    adapt?.(out, channel);
    return { kind: 'json', value: out };
  };
}

/**
 * Upper token estimate of a prompt-like value (string, list of strings, chat messages and their
 * content parts) for the hold: text by estimateTextTokens, message framing, a fixed cost per image
 * part; rounded up. No tokenizer: this runs on every request.
 */
export function estimatePromptTokens(value: unknown): number {
  return Math.ceil(promptTokensOf(value));
}

/** The prompt estimate of a chat body: its messages and, when present, its tool definitions. */
export function estimateChatPromptTokens(body: JsonBody): number {
  const tools = body.tools === undefined ? 0 : jsonTokensOf(body.tools, 0);
  return Math.ceil(promptTokensOf(body.messages) + tools);
}

/** Every key and string of JSON-like data (tool definitions, tool call arguments), plus 1 per value. */
function jsonTokensOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return estimateTextTokens(value) + 1;
  if (!value || typeof value !== 'object' || depth > 32) return 1;
  let total = 1;
  if (Array.isArray(value)) {
    for (const item of value) total += jsonTokensOf(item, depth + 1);
    return total;
  }
  for (const key in value as Record<string, unknown>)
    total += estimateTextTokens(key) + jsonTokensOf((value as Record<string, unknown>)[key], depth + 1);
  return total;
}

function promptTokensOf(value: unknown): number {
  if (typeof value === 'string') return estimateTextTokens(value);
  if (Array.isArray(value)) {
    let total = 0;
    for (const item of value) total += promptTokensOf(item);
    return total;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (record.image_url !== undefined || record.type === 'image_url' || record.type === 'input_image' || record.type === 'image')
      return imagePartTokens;
    const framing = typeof record.role === 'string' ? messageFramingTokens : 0;
    const calls = record.tool_calls === undefined ? 0 : jsonTokensOf(record.tool_calls, 0);
    return framing + calls + promptTokensOf(record.content) + promptTokensOf(record.text);
  }
  return 0;
}

/** Lowers an OpenAI chat or completions body's output limit to `tokens`, in the field the client used. */
export function capOutputTokens(body: JsonBody, tokens: number): void {
  if (typeof body.max_completion_tokens === 'number') body.max_completion_tokens = tokens;
  if (typeof body.max_completion_tokens !== 'number' || typeof body.max_tokens === 'number') body.max_tokens = tokens;
}

export const positiveInt = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
