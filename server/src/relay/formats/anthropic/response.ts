import type { Usage } from '../../billing/quota.js';
import type { Json } from '@modelgate/shared';

/** OpenAI finish_reason → Claude stop_reason. */
export function stopReasonOf(finishReason: unknown): string {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/**
 * stop_reason and stop_sequence of an OpenAI finish: a `stop` that names the matched sequence in
 * `stop_reason` (vLLM's field; set by the gateway's stop scanner) is Claude's "stop_sequence".
 */
export function stopOf(finishReason: unknown, matched: unknown): { stop_reason: string; stop_sequence: string | null } {
  if (finishReason === 'stop' && typeof matched === 'string' && matched !== '')
    return { stop_reason: 'stop_sequence', stop_sequence: matched };
  return { stop_reason: stopReasonOf(finishReason), stop_sequence: null };
}

/** Usage in Claude's terms: input_tokens excludes cache reads and writes (never negative). */
export function claudeUsageOf(usage: Usage): Json {
  const cacheRead = Math.max(0, usage.cachedTokens);
  const cacheCreation = Math.max(0, usage.cacheCreationTokens ?? 0);
  return {
    input_tokens: Math.max(0, usage.promptTokens - cacheRead - cacheCreation),
    output_tokens: Math.max(0, usage.completionTokens),
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheCreation,
  };
}

/** msg_… id from an OpenAI id (kept when it already is one). */
export function messageIdOf(id: unknown): string {
  const raw = typeof id === 'string' && id ? id : `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  return raw.startsWith('msg_') ? raw : `msg_${raw.replace(/^chatcmpl-/, '')}`;
}

function inputOf(args: unknown): Json {
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : {};
  } catch {
    return {};
  }
}

/** An OpenAI chat.completion → an Anthropic Messages response. */
export function openAiToClaudeResponse(completion: Json, model: string, usage: Usage): Json {
  const choice = ((completion.choices as Json[] | undefined) ?? [])[0] ?? {};
  const message = (choice.message ?? {}) as Json;
  const content: Json[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning) content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  if (typeof message.content === 'string' && message.content) content.push({ type: 'text', text: message.content });
  for (const call of (message.tool_calls as Json[] | undefined) ?? []) {
    const fn = (call.function ?? {}) as Json;
    content.push({ type: 'tool_use', id: call.id, name: fn.name, input: inputOf(fn.arguments) });
  }
  return {
    id: messageIdOf(completion.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    ...stopOf(choice.finish_reason, choice.stop_reason),
    usage: claudeUsageOf(usage),
  };
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
};

/** `{"type":"error","error":{"type","message"}}`; the type follows the status (5xx → api_error). */
export function claudeErrorBody(status: number, message: string, code: string | null): Json {
  const known = code !== null && Object.values(errorTypes).concat('api_error').includes(code) ? code : null;
  const type = known ?? errorTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message } };
}
