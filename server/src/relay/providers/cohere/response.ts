import { createChunkBuilder, openAiCompletion } from '../shared/openai-chunks.js';
import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { UpstreamError } from '../../errors.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { usageCount } from '../../billing/usage-count.js';
import type { Json } from '@modelgate/shared';

const num = usageCount;

/** Usage from `meta.billed_units` (preferred) or `meta.tokens`; null when neither is present. */
export function readCohereUsage(json: Json): Usage | null {
  const meta = json.meta as { billed_units?: Json; tokens?: Json } | undefined;
  const units =
    meta?.billed_units?.input_tokens !== undefined || meta?.billed_units?.output_tokens !== undefined ? meta.billed_units : meta?.tokens;
  if (!units) return null;
  return { promptTokens: num(units.input_tokens), completionTokens: num(units.output_tokens), cachedTokens: 0 };
}

const finishReasons: Record<string, string> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  MAX_TOKENS: 'length',
  ERROR_TOXIC: 'content_filter',
  ERROR_LIMIT: 'length',
};
const finishOf = (reason: unknown, hasTools: boolean) => (hasTools ? 'tool_calls' : (finishReasons[String(reason)] ?? 'stop'));

function toolCallsOf(raw: unknown, prefix: string): Json[] {
  if (!Array.isArray(raw)) return [];
  return (raw as Array<{ name?: string; parameters?: unknown }>).map((call, index) => ({
    index,
    id: `call_${prefix}_${index}`,
    type: 'function',
    function: { name: call.name ?? '', arguments: JSON.stringify(call.parameters ?? {}) },
  }));
}

/** `/v1/chat` answer `{text, finish_reason, tool_calls, meta}` → OpenAI chat.completion. */
export function parseCohereChat(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const id = typeof json.generation_id === 'string' ? json.generation_id : randomUUID();
  const toolCalls = toolCallsOf(json.tool_calls, id.slice(0, 8)).map(({ index: _index, ...call }) => call);
  const message: Json = { role: 'assistant', content: typeof json.text === 'string' ? json.text : '' };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = readCohereUsage(json);
  return { completion: openAiCompletion(id, model, message, finishOf(json.finish_reason, toolCalls.length > 0), usage), usage };
}

/**
 * Cohere v1 stream events (NDJSON lines, or SSE `data:` with the same JSON) → OpenAI chunks:
 * `text-generation` → content delta; `tool-calls-generation` → tool_calls; `stream-end` → finish
 * chunk plus a usage-only chunk from `response.meta`. `stream-end` with `finish_reason: ERROR` throws.
 */
export function createCohereStreamTransform(model: string) {
  const chunks = createChunkBuilder(model);
  const delta = chunks.delta;
  let hasTools = false;
  let usage: Usage | null = null;
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      let line: Json;
      try {
        line = JSON.parse(event.data) as Json;
      } catch {
        return { chunks: [], text: '', usage };
      }
      const type = line.event_type ?? event.event;
      if (type === 'stream-start') {
        if (typeof line.generation_id === 'string') chunks.useId(line.generation_id);
        return { chunks: [delta({ content: '' })], text: '', usage };
      }
      if (type === 'text-generation' && typeof line.text === 'string') {
        return { chunks: [delta({ content: line.text })], text: line.text, usage };
      }
      if (type === 'tool-calls-generation') {
        const calls = toolCallsOf(line.tool_calls, chunks.currentId().slice(-8));
        if (calls.length === 0) return { chunks: [], text: '', usage };
        hasTools = true;
        const text = calls
          .map((call) => `${(call.function as Json).name as string}${(call.function as Json).arguments as string}`)
          .join('');
        return { chunks: [delta({ tool_calls: calls })], text, usage };
      }
      if (type === 'stream-end') {
        const response = (line.response as Json | undefined) ?? {};
        if (line.finish_reason === 'ERROR')
          throw new UpstreamError(
            502,
            typeof response.text === 'string' && response.text ? response.text : 'Cohere stream ended with an error',
            null,
            event.data,
          );
        usage = readCohereUsage(response) ?? usage;
        return { chunks: chunks.finish(finishOf(line.finish_reason, hasTools), usage), text: '', usage };
      }
      return { chunks: [], text: '', usage };
    },
    finish(): ConvertedEvents {
      return { chunks: [], text: '', usage };
    },
  };
}
