import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';

/** Usage counters are untrusted: non-negative safe integers (billing/usage-count.ts). */
const count = usageCount;

/** The raw counters of a Claude `usage` object; input excludes cache reads and writes. */
export interface ClaudeUsageParts {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

export function readClaudeUsageParts(raw: unknown): Partial<ClaudeUsageParts> | null {
  if (!raw || typeof raw !== 'object') return null;
  const usage = raw as Record<string, unknown>;
  const parts: Partial<ClaudeUsageParts> = {};
  if (usage.input_tokens !== undefined) parts.input = count(usage.input_tokens);
  if (usage.output_tokens !== undefined) parts.output = count(usage.output_tokens);
  if (usage.cache_read_input_tokens !== undefined) parts.cacheRead = count(usage.cache_read_input_tokens);
  if (usage.cache_creation_input_tokens !== undefined) {
    parts.cacheCreation = count(usage.cache_creation_input_tokens);
  } else if (usage.cache_creation && typeof usage.cache_creation === 'object') {
    const split = usage.cache_creation as Record<string, unknown>;
    parts.cacheCreation = count(split.ephemeral_5m_input_tokens) + count(split.ephemeral_1h_input_tokens);
  }
  return parts;
}

/** prompt = input + cache reads + cache writes; cached = reads; cacheCreation = writes; completion = output. */
export function toUsage(parts: Partial<ClaudeUsageParts>): Usage {
  const cacheRead = parts.cacheRead ?? 0;
  const cacheCreation = parts.cacheCreation ?? 0;
  return {
    promptTokens: (parts.input ?? 0) + cacheRead + cacheCreation,
    completionTokens: parts.output ?? 0,
    cachedTokens: cacheRead,
    cacheCreationTokens: cacheCreation,
  };
}

/** Usage of a Claude Messages response (or of any object with a Claude `usage`); null when absent. */
export function readClaudeUsage(raw: unknown): Usage | null {
  const parts = readClaudeUsageParts(raw);
  return parts ? toUsage(parts) : null;
}

/** OpenAI-shaped usage for a converted answer. */
export function toOpenAiUsage(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
  };
}
