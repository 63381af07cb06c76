import type { RelayChannel } from '../pipeline/channel-index.js';
import type { ChannelCall, UpstreamBody } from '../pipeline/dispatch.js';
import { relayErrors } from '../errors.js';

export type JsonBody = Record<string, unknown>;

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

/** Character count of a prompt-like value (string, list of strings, or chat content parts). */
export function charsOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) {
    let total = 0;
    for (const item of value) total += charsOf(item);
    return total;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return charsOf(record.content) + charsOf(record.text);
  }
  return 0;
}

export const positiveInt = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);
