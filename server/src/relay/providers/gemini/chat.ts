import { randomBytes } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { openAiLogprobsOf } from './logprobs.js';
import { openAiUsageOf, readGeminiUsage } from './usage.js';
import type { Json } from '@modelgate/shared';

const filterReasons = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'OTHER', 'IMAGE_SAFETY', 'LANGUAGE']);

/** Gemini finishReason → OpenAI finish_reason (null while the candidate is unfinished). */
export function finishReasonOf(reason: unknown, hasToolCalls: boolean): string | null {
  if (reason === undefined || reason === null || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  if (hasToolCalls && reason === 'STOP') return 'tool_calls';
  if (reason === 'STOP') return 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (filterReasons.has(String(reason))) return 'content_filter';
  return 'stop';
}

export const toolCallId = () => `call_${randomBytes(12).toString('hex')}`;

export interface ReadParts {
  text: string;
  reasoning: string;
  toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

/** Splits a candidate's parts into answer text (inline images as markdown data URLs), thought text and function calls. */
export function readParts(parts: unknown): ReadParts {
  const out: ReadParts = { text: '', reasoning: '', toolCalls: [] };
  for (const part of (Array.isArray(parts) ? parts : []) as Json[]) {
    if (typeof part.text === 'string') {
      if (part.thought === true) out.reasoning += part.text;
      else out.text += part.text;
    } else if (part.functionCall && typeof part.functionCall === 'object') {
      const call = part.functionCall as Json;
      out.toolCalls.push({
        id: toolCallId(),
        type: 'function',
        function: { name: String(call.name ?? ''), arguments: JSON.stringify(call.args ?? {}) },
      });
    } else if (part.inlineData && typeof part.inlineData === 'object') {
      const data = part.inlineData as Json;
      out.text += `![image](data:${String(data.mimeType ?? 'image/png')};base64,${String(data.data ?? '')})`;
    } else if (part.executableCode || part.codeExecutionResult) {
      const code = (part.executableCode ?? part.codeExecutionResult) as Json;
      out.text += String(code.code ?? code.output ?? '');
    }
  }
  return out;
}

export const completionId = (responseId: unknown) =>
  `chatcmpl-${typeof responseId === 'string' && responseId ? responseId : randomBytes(12).toString('hex')}`;

/** A GenerateContentResponse → OpenAI `chat.completion` and its usage. */
export function parseGeminiResponse(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const candidates = (Array.isArray(json.candidates) ? json.candidates : []) as Json[];
  const choices = candidates.map((candidate, position) => {
    const parts = readParts((candidate.content as Json | undefined)?.parts);
    const message: Json = { role: 'assistant', content: parts.text === '' && parts.toolCalls.length > 0 ? null : parts.text };
    if (parts.reasoning) message.reasoning_content = parts.reasoning;
    if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
    const finish = finishReasonOf(candidate.finishReason ?? 'STOP', parts.toolCalls.length > 0);
    const choice: Json = { index: typeof candidate.index === 'number' ? candidate.index : position, message, finish_reason: finish };
    const logprobs = openAiLogprobsOf(candidate.logprobsResult);
    if (logprobs) choice.logprobs = logprobs;
    return choice;
  });
  if (choices.length === 0) {
    // The prompt itself was blocked (promptFeedback.blockReason): an empty, filtered answer.
    choices.push({ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' });
  }
  const usage = readGeminiUsage(json.usageMetadata);
  const meta = json.usageMetadata as Json | undefined;
  const thoughts = typeof meta?.thoughtsTokenCount === 'number' ? meta.thoughtsTokenCount : 0;
  const completion: Json = {
    id: completionId(json.responseId),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices,
  };
  if (usage) completion.usage = openAiUsageOf(usage, thoughts);
  return { completion, usage };
}
