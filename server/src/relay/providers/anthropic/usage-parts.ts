import type { ProviderAdapter } from '../types.js';
import { readClaudeUsage } from './usage.js';

/**
 * The usage readers of a Claude-wire adapter (Anthropic, Bedrock). The OpenAI-wire path is not used
 * for Claude — conversion happens in chatConverter — so prepareBody does nothing.
 */
export const claudeUsageParts: Pick<ProviderAdapter, 'chat' | 'chatStream' | 'embeddings'> = {
  chat: {
    prepareBody: () => undefined,
    readUsage: (response) => readClaudeUsage(response.usage),
  },
  chatStream: {
    supportsStreamUsage: true,
    createTransform: () => ({
      onChunk: (chunk) => ({ text: '', usage: readClaudeUsage(chunk.usage), isUsageOnly: false, isModified: false }),
    }),
  },
  embeddings: { readUsage: () => null },
};
