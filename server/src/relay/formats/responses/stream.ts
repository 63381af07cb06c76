import type { Usage } from '../../billing/quota.js';
import { functionCallItem, messageItem, newId, responseObject, responsesUsage, statusOf } from './response.js';
import type { Json } from '@modelgate/shared';

interface OpenCall {
  itemId: string;
  callId: string;
  name: string;
  args: string;
  outputIndex: number;
}

/**
 * OpenAI chat chunks → Responses SSE events (`event: <type>` + data with `type` and an increasing
 * `sequence_number`). Text becomes one message item; each tool call a function_call item. Items
 * are closed in `finish`, followed by `response.completed` (or `response.incomplete`) with usage.
 */
export function createResponsesStreamEncoder(model: string, kept?: { id: string; onComplete(response: Json): void }) {
  const id = kept?.id ?? newId('resp');
  const createdAt = Math.floor(Date.now() / 1000);
  let sequence = 0;
  let isStarted = false;
  let nextOutputIndex = 0;
  let text: { itemId: string; outputIndex: number; value: string } | null = null;
  const calls = new Map<number, OpenCall>();
  const done: Array<{ outputIndex: number; item: Json }> = [];
  let finishReason: unknown = null;
  let reasoningTokens = 0;

  const frame = (type: string, fields: Json): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const snapshot = (status: string, output: Json[], usage: Json | null, incomplete: Json | null = null) =>
    responseObject({ id, model, createdAt, status, incompleteDetails: incomplete, output, usage });

  const start = (): string => {
    if (isStarted) return '';
    isStarted = true;
    return (
      frame('response.created', { response: snapshot('in_progress', [], null) }) +
      frame('response.in_progress', { response: snapshot('in_progress', [], null) })
    );
  };

  const closeText = (): string => {
    if (!text) return '';
    const { itemId, outputIndex, value } = text;
    text = null;
    const part = { type: 'output_text', text: value, annotations: [] };
    const item = messageItem(itemId, value);
    done.push({ outputIndex, item });
    return (
      frame('response.output_text.done', { item_id: itemId, output_index: outputIndex, content_index: 0, text: value }) +
      frame('response.content_part.done', { item_id: itemId, output_index: outputIndex, content_index: 0, part }) +
      frame('response.output_item.done', { output_index: outputIndex, item })
    );
  };

  const closeCalls = (): string => {
    let out = '';
    for (const call of calls.values()) {
      const item = functionCallItem(call.itemId, call.callId, call.name, call.args);
      done.push({ outputIndex: call.outputIndex, item });
      out +=
        frame('response.function_call_arguments.done', { item_id: call.itemId, output_index: call.outputIndex, arguments: call.args }) +
        frame('response.output_item.done', { output_index: call.outputIndex, item });
    }
    calls.clear();
    return out;
  };

  const onText = (delta: string): string => {
    let out = '';
    if (!text) {
      out += closeCalls();
      text = { itemId: newId('msg'), outputIndex: nextOutputIndex++, value: '' };
      out +=
        frame('response.output_item.added', {
          output_index: text.outputIndex,
          item: { type: 'message', id: text.itemId, status: 'in_progress', role: 'assistant', content: [] },
        }) +
        frame('response.content_part.added', {
          item_id: text.itemId,
          output_index: text.outputIndex,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
    }
    text.value += delta;
    return out + frame('response.output_text.delta', { item_id: text.itemId, output_index: text.outputIndex, content_index: 0, delta });
  };

  const onToolCall = (raw: Json): string => {
    const index = typeof raw.index === 'number' ? raw.index : 0;
    const fn = (raw.function as Json | undefined) ?? {};
    let out = '';
    let call = calls.get(index);
    if (!call) {
      out += closeText();
      call = {
        itemId: newId('fc'),
        callId: typeof raw.id === 'string' ? raw.id : newId('call'),
        name: typeof fn.name === 'string' ? fn.name : '',
        args: '',
        outputIndex: nextOutputIndex++,
      };
      calls.set(index, call);
      out += frame('response.output_item.added', {
        output_index: call.outputIndex,
        item: functionCallItem(call.itemId, call.callId, call.name, '', 'in_progress'),
      });
    }
    if (typeof fn.arguments === 'string' && fn.arguments) {
      call.args += fn.arguments;
      out += frame('response.function_call_arguments.delta', { item_id: call.itemId, output_index: call.outputIndex, delta: fn.arguments });
    }
    return out;
  };

  return {
    onChunk(chunk: Json): string {
      let out = start();
      const details = (chunk.usage as { completion_tokens_details?: { reasoning_tokens?: number } } | undefined)?.completion_tokens_details;
      if (typeof details?.reasoning_tokens === 'number') reasoningTokens = details.reasoning_tokens;
      for (const choice of (chunk.choices as Json[] | undefined) ?? []) {
        const delta = (choice.delta as Json | undefined) ?? {};
        if (typeof delta.content === 'string' && delta.content) out += onText(delta.content);
        for (const call of (delta.tool_calls as Json[] | undefined) ?? []) out += onToolCall(call);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      return out;
    },
    finish(usage: Usage): string {
      let out = start() + closeText() + closeCalls();
      const output = done.sort((a, b) => a.outputIndex - b.outputIndex).map((entry) => entry.item);
      const { status, incomplete_details } = statusOf(finishReason);
      const response = snapshot(status, output, responsesUsage(usage, reasoningTokens), incomplete_details);
      kept?.onComplete(response);
      out += frame(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
      return out;
    },
  };
}
