import type { Usage } from '../../billing/quota.js';
import { logprobsResultOf } from './logprobs.js';
import { geminiFinishReason, parseArgs, usageMetadataOf } from './response.js';
import type { Json } from '@modelgate/shared';

interface PendingCall {
  name: string;
  args: string;
}
interface CandidateState {
  calls: Map<number, PendingCall>;
  finishReason: string | null;
}

const frame = (payload: Json) => `data: ${JSON.stringify(payload)}\n\n`;

/**
 * OpenAI chunks → Gemini SSE frames. Text and thought deltas go out at once; tool-call arguments
 * are accumulated and sent as whole functionCall parts when the choice finishes. The finishReason
 * is held back to the last frame, which carries usageMetadata too (as Gemini's own last chunk does).
 */
export function createGeminiStreamEncoder(model: string) {
  let responseId = '';
  let reasoningTokens = 0;
  const candidates = new Map<number, CandidateState>();
  const stateOf = (index: number) => {
    let state = candidates.get(index);
    if (!state) candidates.set(index, (state = { calls: new Map(), finishReason: null }));
    return state;
  };
  const callParts = (state: CandidateState): Json[] => {
    const parts = [...state.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({ functionCall: { name: call.name, args: parseArgs(call.args) } }));
    state.calls.clear();
    return parts;
  };

  function onChunk(chunk: Json): string {
    if (!responseId && typeof chunk.id === 'string') responseId = chunk.id.replace(/^chatcmpl-/, '');
    const details = (chunk.usage as { completion_tokens_details?: { reasoning_tokens?: unknown } } | undefined)?.completion_tokens_details;
    if (typeof details?.reasoning_tokens === 'number') reasoningTokens = details.reasoning_tokens;
    const out: Json[] = [];
    for (const [position, choice] of ((Array.isArray(chunk.choices) ? chunk.choices : []) as Json[]).entries()) {
      const index = typeof choice.index === 'number' ? choice.index : position;
      const state = stateOf(index);
      const delta = (choice.delta ?? {}) as Json;
      const parts: Json[] = [];
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content)
        parts.push({ text: delta.reasoning_content, thought: true });
      if (typeof delta.content === 'string' && delta.content) parts.push({ text: delta.content });
      for (const call of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []) as Json[]) {
        const callIndex = typeof call.index === 'number' ? call.index : state.calls.size;
        const fn = (call.function ?? {}) as Json;
        const pending = state.calls.get(callIndex) ?? { name: '', args: '' };
        if (typeof fn.name === 'string' && fn.name) pending.name = fn.name;
        if (typeof fn.arguments === 'string') pending.args += fn.arguments;
        state.calls.set(callIndex, pending);
      }
      if (choice.finish_reason) {
        state.finishReason = geminiFinishReason(choice.finish_reason);
        parts.push(...callParts(state));
      }
      const logprobsResult = logprobsResultOf(choice.logprobs);
      if (parts.length > 0) out.push({ content: { role: 'model', parts }, index, ...(logprobsResult ? { logprobsResult } : {}) });
    }
    if (out.length === 0) return '';
    return frame({ candidates: out, modelVersion: model, responseId });
  }

  /** The last frame: pending tool calls, each candidate's finishReason, and the usage. */
  function finish(usage: Usage): string {
    if (candidates.size === 0) stateOf(0);
    const out = [...candidates.entries()].map(([index, state]) => {
      const parts = callParts(state);
      return {
        content: { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] },
        finishReason: state.finishReason ?? 'STOP',
        index,
      };
    });
    return frame({ candidates: out, usageMetadata: usageMetadataOf(usage, reasoningTokens), modelVersion: model, responseId });
  }

  return { onChunk, finish };
}
