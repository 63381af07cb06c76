import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import { createChunkBuilder, openAiCompletion } from '../shared/openai-chunks.js';
import { jsonOfStreamLine } from '../shared/stream-lines.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { throwIfSparkError } from './errors.js';
import type { Json } from '@modelgate/shared';

const objectOf = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

/** `payload.usage.text{prompt_tokens, completion_tokens}` (only on the last frame). */
export function readSparkUsage(frame: Json): Usage | null {
  const text = objectOf(objectOf(objectOf(frame.payload).usage).text);
  if (text.prompt_tokens === undefined && text.completion_tokens === undefined) return null;
  return { promptTokens: usageCount(text.prompt_tokens), completionTokens: usageCount(text.completion_tokens), cachedTokens: 0 };
}

/** The text one frame adds: `payload.choices.text[].content`. */
function textOf(frame: Json): string {
  const parts = objectOf(objectOf(frame.payload).choices).text;
  if (!Array.isArray(parts)) return '';
  return (parts as Json[]).map((part) => (typeof part?.content === 'string' ? part.content : '')).join('');
}

/** Function calls a frame carries (`text[].function_call{name, arguments}`) as OpenAI tool calls. */
function toolCallsOf(frame: Json): Json[] {
  const parts = objectOf(objectOf(frame.payload).choices).text;
  if (!Array.isArray(parts)) return [];
  return (parts as Json[])
    .map((part) => objectOf(part?.function_call))
    .filter((call) => typeof call.name === 'string')
    .map((call, index) => ({
      index,
      id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      type: 'function',
      function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}) },
    }));
}

const isLastFrame = (frame: Json): boolean => objectOf(frame.header).status === 2 || objectOf(objectOf(frame.payload).choices).status === 2;

/**
 * Spark frames (one NDJSON line each, from the WebSocket transport) → OpenAI chunks: text and
 * function calls as deltas; the last frame (`header.status` 2) carries the usage and closes the
 * answer; an error frame (`header.code` ≠ 0) throws.
 */
export function createSparkStreamTransform(model: string) {
  const chunks = createChunkBuilder(model);
  let usage: Usage | null = null;
  let isFinished = false;
  let hasToolCalls = false;
  const close = (): Json[] => {
    isFinished = true;
    return chunks.finish(hasToolCalls ? 'tool_calls' : 'stop', usage);
  };
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      const frame = jsonOfStreamLine(event.data);
      if (!frame || isFinished) return { chunks: [], text: '', usage };
      throwIfSparkError(frame, event.data);
      const sid = objectOf(frame.header).sid;
      if (typeof sid === 'string' && sid) chunks.useId(sid);
      usage = readSparkUsage(frame) ?? usage;
      const text = textOf(frame);
      const toolCalls = toolCallsOf(frame);
      const out: Json[] = [];
      if (text) out.push(chunks.delta({ content: text }));
      if (toolCalls.length > 0) {
        hasToolCalls = true;
        out.push(chunks.delta({ tool_calls: toolCalls }));
      }
      if (isLastFrame(frame)) out.push(...close());
      return { chunks: out, text, usage };
    },
    finish(): ConvertedEvents {
      return { chunks: isFinished ? [] : close(), text: '', usage };
    },
  };
}

/** One whole frame as a completion (Spark always streams; the relay aggregates frames for non-stream clients). */
export function parseSparkResponse(json: Json, model: string): { completion: Json; usage: Usage | null } {
  throwIfSparkError(json, JSON.stringify(json));
  const usage = readSparkUsage(json);
  const sid = objectOf(json.header).sid;
  return {
    completion: openAiCompletion(
      typeof sid === 'string' && sid ? sid : randomUUID(),
      model,
      { role: 'assistant', content: textOf(json) },
      'stop',
      usage,
    ),
    usage,
  };
}
