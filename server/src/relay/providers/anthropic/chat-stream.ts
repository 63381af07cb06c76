import type { Usage } from '../../billing/quota.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { streamErrorOf } from './errors.js';
import { finishReasonOf } from './response.js';
import { readClaudeUsageParts, toUsage, type ClaudeUsageParts } from './usage.js';
import type { Json } from '@modelgate/shared';

const parse = (data: string): Json | null => {
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === 'object' ? (value as Json) : null;
  } catch {
    return null;
  }
};

/** Bedrock's last event carries amazon-bedrock-invocationMetrics; used only when no Claude usage came. */
function metricsParts(event: Json): Partial<ClaudeUsageParts> | null {
  const metrics = event['amazon-bedrock-invocationMetrics'] as Json | undefined;
  if (!metrics) return null;
  const n = (v: unknown) => (typeof v === 'number' && v > 0 ? v : 0);
  return {
    input: n(metrics.inputTokenCount),
    output: n(metrics.outputTokenCount),
    cacheRead: n(metrics.cacheReadInputTokenCount),
    cacheCreation: n(metrics.cacheWriteInputTokenCount),
  };
}

/**
 * Claude SSE events → OpenAI chat.completion.chunk objects. The first chunk carries the role;
 * each tool_use block gets the next tool-call index; usage = message_start's input/cache counters
 * with the last message_delta's cumulative output_tokens (never summed). An `error` event throws
 * an UpstreamError (overloaded_error → 529, retryable).
 */
export function createClaudeStreamTransform(model: string) {
  let id = `chatcmpl-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  let isRoleSent = false;
  let isFinished = false;
  let hasClaudeUsage = false;
  const parts: Partial<ClaudeUsageParts> = {};
  const toolIndexOfBlock = new Map<number, number>();

  const chunk = (delta: Json, finishReason: string | null = null): Json => {
    if (!isRoleSent) {
      delta = { role: 'assistant', ...delta };
      isRoleSent = true;
    }
    return { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
  };
  const usage = (): Usage | null => (Object.keys(parts).length > 0 ? toUsage(parts) : null);
  const merge = (raw: unknown) => {
    const read = readClaudeUsageParts(raw);
    if (!read) return;
    hasClaudeUsage = true;
    for (const [key, value] of Object.entries(read) as Array<[keyof ClaudeUsageParts, number]>) {
      // Later events repeat counters cumulatively: a zero never overwrites a known count.
      if (value > 0 || parts[key] === undefined) parts[key] = value;
    }
  };

  function onEvent(event: StreamEvent): ConvertedEvents {
    const json = parse(event.data);
    const type = (json?.type as string | undefined) ?? event.event;
    const out: ConvertedEvents = { chunks: [], text: '', usage: null };
    if (!json) return out;
    switch (type) {
      case 'message_start': {
        const message = (json.message ?? {}) as Json;
        if (typeof message.id === 'string') id = message.id;
        merge(message.usage);
        out.chunks.push(chunk({ content: '' }));
        break;
      }
      case 'content_block_start': {
        const block = (json.content_block ?? {}) as Json;
        const index = Number(json.index ?? 0);
        if (block.type === 'tool_use') {
          const toolIndex = toolIndexOfBlock.size;
          toolIndexOfBlock.set(index, toolIndex);
          out.chunks.push(
            chunk({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] }),
          );
          out.text = String(block.name ?? '');
        } else if (block.type === 'text' && typeof block.text === 'string' && block.text) {
          out.chunks.push(chunk({ content: block.text }));
          out.text = block.text;
        }
        break;
      }
      case 'content_block_delta': {
        const delta = (json.delta ?? {}) as Json;
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          out.chunks.push(chunk({ content: delta.text }));
          out.text = delta.text;
        } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
          out.chunks.push(chunk({ reasoning_content: delta.thinking }));
          out.text = delta.thinking;
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          const toolIndex = toolIndexOfBlock.get(Number(json.index ?? 0)) ?? Math.max(0, toolIndexOfBlock.size - 1);
          out.chunks.push(chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] }));
          out.text = delta.partial_json;
        }
        break;
      }
      case 'message_delta': {
        merge(json.usage);
        const stopReason = (json.delta as Json | undefined)?.stop_reason;
        const finishReason = finishReasonOf(stopReason);
        if (finishReason && !isFinished) {
          const finish = chunk({}, finishReason);
          // Which stop sequence ended it, in vLLM's field (the Anthropic encoders read it back).
          const matched = (json.delta as Json | undefined)?.stop_sequence;
          if (stopReason === 'stop_sequence' && typeof matched === 'string' && matched !== '')
            (finish.choices as Json[])[0]!.stop_reason = matched;
          out.chunks.push(finish);
          isFinished = true;
        }
        break;
      }
      case 'error':
        throw streamErrorOf(event.data);
      default: {
        // message_stop (Bedrock adds its metrics here), ping, content_block_stop, signature_delta.
        const metrics = metricsParts(json);
        if (metrics && !hasClaudeUsage) Object.assign(parts, metrics);
      }
    }
    out.usage = usage();
    return out;
  }

  return {
    onEvent,
    finish(): ConvertedEvents {
      return { chunks: [], text: '', usage: usage() };
    },
  };
}
