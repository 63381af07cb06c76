import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import type { Json } from '@modelgate/shared';

/** OpenAI `usage` of a converted answer. */
export const openAiUsage = (usage: Usage): Json => ({
  prompt_tokens: usage.promptTokens,
  completion_tokens: usage.completionTokens,
  total_tokens: usage.promptTokens + usage.completionTokens,
});

/** An OpenAI `chat.completion` with one choice, as converters build it from a provider answer. */
export function openAiCompletion(id: string, model: string, message: Json, finishReason: string, usage: Usage | null): Json {
  const completion: Json = {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finishReason }],
  };
  if (usage) completion.usage = openAiUsage(usage);
  return completion;
}

/**
 * Builds the `chat.completion.chunk` objects of one converted stream: the first delta carries
 * `role: 'assistant'`, then plain deltas; a finish chunk and a usage-only chunk (`choices: []`).
 */
export function createChunkBuilder(model: string) {
  let id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  let isRoleSent = false;
  const chunk = (choices: Json[], extra: Json = {}): Json => ({ id, object: 'chat.completion.chunk', created, model, choices, ...extra });
  return {
    /** Replaces the generated id with the provider's (`chatcmpl-<upstreamId>`). */
    useId(upstreamId: string) {
      id = `chatcmpl-${upstreamId}`;
    },
    currentId: () => id,
    chunk,
    delta(fields: Json): Json {
      const out = isRoleSent ? fields : { role: 'assistant', ...fields };
      isRoleSent = true;
      return chunk([{ index: 0, delta: out, finish_reason: null }]);
    },
    /** The finish chunk, then the usage-only chunk when usage is known. */
    finish(reason: string, usage: Usage | null): Json[] {
      const chunks = [chunk([{ index: 0, delta: {}, finish_reason: reason }])];
      if (usage) chunks.push(chunk([], { usage: openAiUsage(usage) }));
      return chunks;
    },
  };
}
