import type { Usage } from '../../billing/quota.js';
import { UpstreamError } from '../../errors.js';
import type { ChatCall, StreamEvent, StreamFraming, UpstreamRequest } from '../types.js';
import { usageCount } from '../../billing/usage-count.js';
import type { Json } from '@modelgate/shared';

const num = usageCount;

/** Usage of a native Responses object: input/output tokens, cached from input_tokens_details. */
export function readResponsesUsage(json: Json): Usage | null {
  const usage = json.usage as Json | null | undefined;
  if (!usage || typeof usage !== 'object') return null;
  const details = usage.input_tokens_details as { cached_tokens?: unknown } | undefined;
  return { promptTokens: num(usage.input_tokens), completionTokens: num(usage.output_tokens), cachedTokens: num(details?.cached_tokens) };
}

const terminal = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * For OpenAI channels (type 1): Responses requests relayed natively to `{base}/v1/responses`
 * (NativeWire-like; `format` is 'responses', which WireFormat does not list).
 */
export const responsesPassThrough = {
  format: 'responses' as const,
  framing: 'sse' as StreamFraming,
  buildRequest(body: Json, call: ChatCall): UpstreamRequest {
    const base = call.target.baseURL.replace(/\/+$/, '');
    const url = base.endsWith('/v1') ? `${base}/responses` : `${base}/v1/responses`;
    const headers: Record<string, string> = { ...call.target.headers };
    if (call.target.key) headers.authorization = `Bearer ${call.target.key}`;
    return { url, headers, body: { ...body, model: call.upstreamModel } };
  },
  readUsage: readResponsesUsage,
  /** Text from `response.output_text.delta` (and argument deltas); usage from the terminal event. */
  createUsageReader() {
    let usage: Usage | null = null;
    return {
      onEvent(event: StreamEvent): { usage: Usage | null; text: string } {
        let data: Json;
        try {
          data = JSON.parse(event.data) as Json;
        } catch {
          return { usage, text: '' };
        }
        const type = typeof data.type === 'string' ? data.type : event.event;
        // An `error` event is not passed on as it came: it ends the stream (or fails over before the
        // first byte) and reaches the client classified and redacted (errors.ts).
        if (type === 'error')
          throw new UpstreamError(
            0,
            typeof data.message === 'string' ? data.message : '上游流返回错误',
            typeof data.code === 'string' ? data.code : null,
            event.data,
          );
        if (
          (type === 'response.output_text.delta' || type === 'response.function_call_arguments.delta') &&
          typeof data.delta === 'string'
        ) {
          return { usage, text: data.delta };
        }
        if (type && terminal.has(type)) usage = readResponsesUsage((data.response as Json | undefined) ?? {}) ?? usage;
        return { usage, text: '' };
      },
    };
  },
};
