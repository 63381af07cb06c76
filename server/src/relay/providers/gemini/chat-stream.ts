import type { Usage } from '../../billing/quota.js';
import { UpstreamError } from '../../errors.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { completionId, finishReasonOf, readParts } from './chat.js';
import { throwIfStreamError } from './errors.js';
import { openAiLogprobsOf } from './logprobs.js';
import { readGeminiUsage } from './usage.js';
import type { Json } from '@modelgate/shared';

interface ChoiceState {
  hasRole: boolean;
  toolCallCount: number;
  isFinished: boolean;
}

/**
 * Gemini SSE (`data:` = one GenerateContentResponse, no terminator) → OpenAI chunks. usageMetadata
 * is cumulative, the last one wins. The transform never emits a usage-only chunk: the pipeline
 * adds one from `usage` when the client asked for `stream_options.include_usage`.
 */
export function createGeminiStreamTransform(model: string) {
  let id = '';
  const created = Math.floor(Date.now() / 1000);
  const choices = new Map<number, ChoiceState>();
  let usage: Usage | null = null;

  const chunkOf = (index: number, delta: Json, finishReason: string | null, logprobs: Json | null = null): Json => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index, delta, finish_reason: finishReason, ...(logprobs ? { logprobs } : {}) }],
  });

  const stateOf = (index: number): ChoiceState => {
    let state = choices.get(index);
    if (!state) choices.set(index, (state = { hasRole: false, toolCallCount: 0, isFinished: false }));
    return state;
  };

  function onEvent(event: StreamEvent): ConvertedEvents {
    const data = event.data.trim();
    if (data === '' || data === '[DONE]') return { chunks: [], text: '', usage };
    let json: Json;
    try {
      json = JSON.parse(data) as Json;
    } catch {
      throw new UpstreamError(502, `Gemini 流式响应不是 JSON：${data.slice(0, 200)}`, null, data);
    }
    throwIfStreamError(json);
    if (!id) id = completionId(json.responseId);
    const chunks: Json[] = [];
    let text = '';
    const candidates = (Array.isArray(json.candidates) ? json.candidates : []) as Json[];
    candidates.forEach((candidate, position) => {
      const index = typeof candidate.index === 'number' ? candidate.index : position;
      const state = stateOf(index);
      const parts = readParts((candidate.content as Json | undefined)?.parts);
      const delta: Json = {};
      if (!state.hasRole) {
        delta.role = 'assistant';
        state.hasRole = true;
      }
      if (parts.reasoning) delta.reasoning_content = parts.reasoning;
      if (parts.text) delta.content = parts.text;
      if (parts.toolCalls.length > 0) {
        delta.tool_calls = parts.toolCalls.map((call) => ({ index: state.toolCallCount++, ...call }));
      }
      text += parts.reasoning + parts.text + parts.toolCalls.map((call) => call.function.name + call.function.arguments).join('');
      const finish = finishReasonOf(candidate.finishReason, state.toolCallCount > 0);
      const hasContent = Object.keys(delta).some((key) => key !== 'role');
      // The event's tokens' log probabilities ride on the chunk that carries its text.
      if (hasContent || (delta.role && !finish)) chunks.push(chunkOf(index, delta, null, openAiLogprobsOf(candidate.logprobsResult)));
      if (finish && !state.isFinished) {
        state.isFinished = true;
        chunks.push(chunkOf(index, hasContent ? {} : delta, finish));
      }
    });
    if (candidates.length === 0 && (json.promptFeedback as Json | undefined)?.blockReason) {
      const state = stateOf(0);
      if (!state.isFinished) {
        state.isFinished = true;
        chunks.push(chunkOf(0, { role: 'assistant', content: '' }, 'content_filter'));
      }
    }
    const eventUsage = readGeminiUsage(json.usageMetadata);
    if (eventUsage) usage = eventUsage;
    return { chunks, text, usage };
  }

  /** At EOF: finishes any choice the upstream left open (stream cut without finishReason). */
  function finish(): ConvertedEvents {
    if (!id) id = completionId(undefined);
    if (choices.size === 0) choices.set(0, { hasRole: false, toolCallCount: 0, isFinished: false });
    const chunks: Json[] = [];
    for (const [index, state] of choices) {
      if (state.isFinished) continue;
      state.isFinished = true;
      chunks.push(chunkOf(index, state.hasRole ? {} : { role: 'assistant' }, state.toolCallCount > 0 ? 'tool_calls' : 'stop'));
    }
    return { chunks, text: '', usage };
  }

  return { onEvent, finish };
}
