import type { Usage } from '../../billing/quota.js';
import { readClaudeUsage, toOpenAiUsage } from './usage.js';
import type { Json } from '@modelgate/shared';

/** Claude stop_reason → OpenAI finish_reason. */
export function finishReasonOf(stopReason: unknown): string | null {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case null:
    case undefined:
      return null;
    default:
      return 'stop';
  }
}

/** A Claude Messages response → an OpenAI chat.completion (text, tool_calls, reasoning_content) and its usage. */
export function claudeToOpenAi(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const blocks = Array.isArray(json.content) ? (json.content as Json[]) : [];
  let text = '';
  let reasoning = '';
  const toolCalls: Json[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning += block.thinking;
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: Json = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (reasoning) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = readClaudeUsage(json.usage);
  const completion: Json = {
    id: typeof json.id === 'string' ? json.id : `chatcmpl-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(json.stop_reason) ?? 'stop' }],
  };
  if (usage) completion.usage = toOpenAiUsage(usage);
  return { completion, usage };
}
