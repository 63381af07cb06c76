import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import { readOpenAiUsage } from './chat.js';

/** Embeddings, rerank (Jina/Xinference `meta.tokens` too) report prompt tokens only. */
export function readEmbeddingUsage(response: Record<string, unknown>): Usage | null {
  const usage = readOpenAiUsage(response.usage);
  if (usage) return usage;
  const meta = response.meta as { tokens?: { input_tokens?: number } } | undefined;
  const input = meta?.tokens?.input_tokens;
  return input === undefined || input === null ? null : { promptTokens: usageCount(input), completionTokens: 0, cachedTokens: 0 };
}
