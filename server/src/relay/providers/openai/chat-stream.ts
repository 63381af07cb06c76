import type { ChunkTransform, ChunkVerdict } from '../types.js';
import { readOpenAiUsage, type UsageReadOptions } from './chat.js';

export interface StreamConfig extends UsageReadOptions {
  /** Moonshot puts the stream usage in choices[0].usage of the last chunk. */
  isUsageInChoice?: boolean;
}

/** Reads delta text and usage from OpenAI chat and completion chunks; changes nothing. */
export function createOpenAiChunkTransform(config: StreamConfig): ChunkTransform {
  return {
    isReadOnly: true,
    onChunk(chunk): ChunkVerdict {
      const choices = chunk.choices as Array<Record<string, unknown>> | undefined;
      let text = '';
      let usageSource: unknown = chunk.usage;
      if (Array.isArray(choices)) {
        for (const choice of choices) {
          // An upstream's stray null or scalar in place of a choice, a delta or a call is skipped, not a crash.
          if (!choice || typeof choice !== 'object') continue;
          const delta = choice.delta as Record<string, unknown> | undefined;
          if (delta && typeof delta === 'object') {
            if (typeof delta.content === 'string') text += delta.content;
            if (typeof delta.reasoning_content === 'string') text += delta.reasoning_content;
            const calls = delta.tool_calls as Array<{ function?: { arguments?: unknown; name?: unknown } }> | undefined;
            if (Array.isArray(calls)) {
              for (const call of calls) {
                if (!call || typeof call !== 'object') continue;
                if (typeof call.function?.name === 'string') text += call.function.name;
                if (typeof call.function?.arguments === 'string') text += call.function.arguments;
              }
            }
          } else if (typeof choice.text === 'string') {
            text += choice.text;
          }
          if (config.isUsageInChoice && choice.usage) usageSource = choice.usage;
        }
      }
      const usage = usageSource ? readOpenAiUsage(usageSource, config) : null;
      return { text, usage, isUsageOnly: usage !== null && Array.isArray(choices) && choices.length === 0, isModified: false };
    },
  };
}
