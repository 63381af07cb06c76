import type { Usage } from '../../billing/quota.js';
import { claudeUsageOf, messageIdOf, stopOf } from './response.js';
import type { Json } from '@modelgate/shared';

const frame = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/**
 * OpenAI chat.completion.chunk objects → Anthropic SSE. Blocks are opened lazily and numbered in
 * order: switching between thinking, text and a tool call closes the open block and opens the next
 * index; each new OpenAI tool-call index opens a new tool_use block. message_start states the
 * prompt's tokens (counted locally); message_delta (stop_reason and the upstream's final usage) and
 * message_stop are written by finish().
 */
export function createClaudeStreamEncoder(model: string, promptTokens?: () => number) {
  let isStarted = false;
  let nextIndex = 0;
  let open: { index: number; kind: 'text' | 'thinking' | 'tool'; toolIndex?: number } | null = null;
  let finishReason: unknown = null;
  let stopSequence: string | null = null;

  const start = (id: unknown): string => {
    if (isStarted) return '';
    isStarted = true;
    const message = {
      id: messageIdOf(id),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // The upstream's count comes only at the end (OpenAI, Gemini): the prompt counted here, as Claude states it up front.
      usage: { input_tokens: promptTokens ? promptTokens() : 0, output_tokens: 0 },
    };
    return frame('message_start', { message });
  };
  const close = (): string => {
    if (!open) return '';
    const out = frame('content_block_stop', { index: open.index });
    open = null;
    return out;
  };
  const openBlock = (kind: 'text' | 'thinking' | 'tool', contentBlock: Json, toolIndex?: number): string => {
    const out = close();
    open = { index: nextIndex++, kind, toolIndex };
    return out + frame('content_block_start', { index: open.index, content_block: contentBlock });
  };
  const delta = (payload: Json) => frame('content_block_delta', { index: open!.index, delta: payload });

  function onChunk(chunk: Json): string {
    let out = start(chunk.id);
    const choice = ((chunk.choices as Json[] | undefined) ?? [])[0];
    if (!choice) return out;
    const d = (choice.delta ?? {}) as Json;
    const reasoning = d.reasoning_content ?? d.reasoning;
    if (typeof reasoning === 'string' && reasoning) {
      if (open?.kind !== 'thinking') out += openBlock('thinking', { type: 'thinking', thinking: '' });
      out += delta({ type: 'thinking_delta', thinking: reasoning });
    }
    if (typeof d.content === 'string' && d.content) {
      if (open?.kind !== 'text') out += openBlock('text', { type: 'text', text: '' });
      out += delta({ type: 'text_delta', text: d.content });
    }
    for (const call of (d.tool_calls as Json[] | undefined) ?? []) {
      const toolIndex = typeof call.index === 'number' ? call.index : 0;
      const fn = (call.function ?? {}) as Json;
      if (open?.kind !== 'tool' || open.toolIndex !== toolIndex) {
        out += openBlock('tool', { type: 'tool_use', id: call.id ?? `toolu_${toolIndex}`, name: fn.name ?? '', input: {} }, toolIndex);
      }
      if (typeof fn.arguments === 'string' && fn.arguments) out += delta({ type: 'input_json_delta', partial_json: fn.arguments });
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
    if (typeof choice.stop_reason === 'string') stopSequence = choice.stop_reason;
    return out;
  }

  return {
    onChunk,
    finish(usage: Usage): string {
      let out = start(null) + close();
      out += frame('message_delta', { delta: stopOf(finishReason, stopSequence), usage: claudeUsageOf(usage) });
      return out + frame('message_stop', {});
    },
  };
}
