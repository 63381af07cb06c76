import { randomBytes } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import type { Json } from '@modelgate/shared';

export const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Responses usage with cached tokens and (when known) reasoning tokens. */
export function responsesUsage(usage: Usage, reasoningTokens = 0): Json {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** finish_reason length / content_filter → status incomplete with its reason. */
export function statusOf(finishReason: unknown): { status: string; incomplete_details: Json | null } {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export function responseObject(fields: {
  id: string;
  model: string;
  createdAt: number;
  status: string;
  incompleteDetails: Json | null;
  output: Json[];
  usage: Json | null;
}): Json {
  return {
    id: fields.id,
    object: 'response',
    created_at: fields.createdAt,
    status: fields.status,
    error: null,
    incomplete_details: fields.incompleteDetails,
    instructions: null,
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: fields.usage,
  };
}

export const messageItem = (id: string, text: string, status = 'completed'): Json => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [] }],
});

export const functionCallItem = (id: string, callId: string, name: string, args: string, status = 'completed'): Json => ({
  type: 'function_call',
  id,
  call_id: callId,
  name,
  arguments: args,
  status,
});

/** OpenAI chat.completion → Responses object. */
export function chatToResponses(completion: Json, model: string, usage: Usage): Json {
  const choice = (completion.choices as Json[] | undefined)?.[0] ?? {};
  const message = (choice.message as Json | undefined) ?? {};
  const output: Json[] = [];
  if (typeof message.reasoning_content === 'string' && message.reasoning_content) {
    output.push({ type: 'reasoning', id: newId('rs'), summary: [{ type: 'summary_text', text: message.reasoning_content }] });
  }
  if (typeof message.content === 'string' && message.content) output.push(messageItem(newId('msg'), message.content));
  for (const call of (message.tool_calls as Json[] | undefined) ?? []) {
    const fn = (call.function as Json | undefined) ?? {};
    output.push(functionCallItem(newId('fc'), String(call.id ?? newId('call')), String(fn.name ?? ''), String(fn.arguments ?? '')));
  }
  const details = (completion.usage as { completion_tokens_details?: { reasoning_tokens?: number } } | undefined)
    ?.completion_tokens_details;
  const { status, incomplete_details } = statusOf(choice.finish_reason);
  return responseObject({
    id: newId('resp'),
    model,
    createdAt: typeof completion.created === 'number' ? completion.created : Math.floor(Date.now() / 1000),
    status,
    incompleteDetails: incomplete_details,
    output,
    usage: responsesUsage(usage, details?.reasoning_tokens ?? 0),
  });
}
