import type { Usage } from '../../billing/quota.js';
import type { ChatCall, NativeWire, StreamEvent, UpstreamRequest } from '../types.js';
import { anthropicHeaders, anthropicUrl, applyModelHeaders } from './api.js';
import { streamErrorOf } from './errors.js';
import { readClaudeUsage, readClaudeUsageParts, toUsage, type ClaudeUsageParts } from './usage.js';

/**
 * A stateful usage reader over native Claude stream events: input/cache counters from
 * message_start, cumulative output_tokens from the last message_delta; text from the deltas.
 */
export function createClaudeUsageReader() {
  const parts: Partial<ClaudeUsageParts> = {};
  return {
    onEvent(event: StreamEvent): { usage: Usage | null; text: string } {
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(event.data) as Record<string, unknown>;
      } catch {
        return { usage: Object.keys(parts).length > 0 ? toUsage(parts) : null, text: '' };
      }
      // An `error` event (overloaded_error, …): the pipeline fails over before the first byte, else ends the stream with it.
      if (json.type === 'error') throw streamErrorOf(event.data);
      let text = '';
      const raw = json.type === 'message_start' ? (json.message as Record<string, unknown> | undefined)?.usage : json.usage;
      const read = json.type === 'message_start' || json.type === 'message_delta' ? readClaudeUsageParts(raw) : null;
      if (read) {
        for (const [key, value] of Object.entries(read) as Array<[keyof ClaudeUsageParts, number]>) {
          if (value > 0 || parts[key] === undefined) parts[key] = value;
        }
      }
      if (json.type === 'content_block_delta') {
        const delta = (json.delta ?? {}) as Record<string, unknown>;
        const piece = delta.text ?? delta.thinking ?? delta.partial_json;
        if (typeof piece === 'string') text = piece;
      }
      return { usage: Object.keys(parts).length > 0 ? toUsage(parts) : null, text };
    },
  };
}

const countedFields = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers'];

/** Pass-through of Claude-format clients: the body goes unchanged but for the model name. */
export const claudeNativeWire: NativeWire = {
  format: 'claude',
  framing: 'sse',
  buildRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest {
    const headers = applyModelHeaders(anthropicHeaders(call.target), call.upstreamModel, call.options);
    return { url: anthropicUrl('chat', call.target), headers, body: { ...body, model: call.upstreamModel } };
  },
  readUsage: (json) => readClaudeUsage(json.usage),
  createUsageReader: createClaudeUsageReader,
  countTokens: {
    // POST /v1/messages/count_tokens takes the request's prompt fields only (no max_tokens, stream, sampling).
    request(chat: UpstreamRequest): UpstreamRequest {
      const body = (chat.body ?? {}) as Record<string, unknown>;
      const counted: Record<string, unknown> = {};
      for (const field of countedFields) if (body[field] !== undefined) counted[field] = body[field];
      return { ...chat, url: `${chat.url.replace(/\?.*$/, '')}/count_tokens`, body: counted };
    },
    read: (json) =>
      typeof json.input_tokens === 'number' && Number.isFinite(json.input_tokens) && json.input_tokens >= 0
        ? Math.floor(json.input_tokens)
        : null,
  },
};
