import type { Usage } from '../../billing/quota.js';
import { logprobsResultOf } from './logprobs.js';
import type { Json } from '@modelgate/shared';

const finishReasons: Record<string, string> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  tool_calls: 'STOP',
  function_call: 'STOP',
};

/** OpenAI finish_reason → Gemini finishReason. */
export const geminiFinishReason = (reason: unknown): string => finishReasons[String(reason)] ?? 'STOP';

export function parseArgs(text: unknown): Json {
  if (typeof text !== 'string' || text.trim() === '') return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : { value: parsed };
  } catch {
    return { arguments: text };
  }
}

/**
 * Usage → usageMetadata. Gemini counts thoughts apart from candidates, so reasoning tokens (when the
 * OpenAI answer reported them) move to thoughtsTokenCount; the total stays prompt + completion.
 */
export function usageMetadataOf(usage: Usage, reasoningTokens = 0): Json {
  const thoughts = Math.min(Math.max(0, reasoningTokens), usage.completionTokens);
  const meta: Json = {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens - thoughts,
    totalTokenCount: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens > 0) meta.cachedContentTokenCount = usage.cachedTokens;
  if (thoughts > 0) meta.thoughtsTokenCount = thoughts;
  return meta;
}

export const reasoningTokensOf = (completion: Json): number => {
  const details = (completion.usage as { completion_tokens_details?: { reasoning_tokens?: unknown } } | undefined)
    ?.completion_tokens_details;
  return typeof details?.reasoning_tokens === 'number' ? details.reasoning_tokens : 0;
};

/** An OpenAI assistant message → Gemini parts (thought text first, then text, then function calls). */
export function partsOfMessage(message: Json): Json[] {
  const parts: Json[] = [];
  if (typeof message.reasoning_content === 'string' && message.reasoning_content)
    parts.push({ text: message.reasoning_content, thought: true });
  if (typeof message.content === 'string' && message.content) parts.push({ text: message.content });
  for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]) {
    const fn = (call.function ?? {}) as Json;
    parts.push({ functionCall: { name: String(fn.name ?? ''), args: parseArgs(fn.arguments) } });
  }
  return parts;
}

/** OpenAI `chat.completion` → GenerateContentResponse. */
export function openAIToGemini(completion: Json, model: string, usage: Usage): Json {
  const choices = (Array.isArray(completion.choices) ? completion.choices : []) as Json[];
  const candidates = choices.map((choice, position) => {
    const parts = partsOfMessage((choice.message ?? {}) as Json);
    const candidate: Json = {
      content: { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] },
      finishReason: geminiFinishReason(choice.finish_reason),
      index: typeof choice.index === 'number' ? choice.index : position,
    };
    const logprobsResult = logprobsResultOf(choice.logprobs);
    if (logprobsResult) candidate.logprobsResult = logprobsResult;
    return candidate;
  });
  return {
    candidates,
    usageMetadata: usageMetadataOf(usage, reasoningTokensOf(completion)),
    modelVersion: model,
    responseId: typeof completion.id === 'string' ? completion.id.replace(/^chatcmpl-/, '') : '',
  };
}
