import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';

/** Usage counters are untrusted: non-negative safe integers (billing/usage-count.ts). */
const count = usageCount;

/**
 * Gemini usageMetadata → Usage. prompt = promptTokenCount + toolUsePromptTokenCount (tool-use
 * prompt tokens are not inside promptTokenCount); completion = candidatesTokenCount +
 * thoughtsTokenCount (thoughts are not inside candidates); cached = cachedContentTokenCount (a part
 * of the prompt). When candidatesTokenCount is absent, completion = total − prompt (which then
 * already holds the thoughts). Never negative; null when there is no usageMetadata.
 */
export function readGeminiUsage(raw: unknown): Usage | null {
  if (!raw || typeof raw !== 'object') return null;
  const meta = raw as Record<string, unknown>;
  const promptTokens = count(meta.promptTokenCount) + count(meta.toolUsePromptTokenCount);
  const completionTokens =
    meta.candidatesTokenCount === undefined && meta.totalTokenCount !== undefined
      ? Math.max(0, count(meta.totalTokenCount) - promptTokens)
      : count(meta.candidatesTokenCount) + count(meta.thoughtsTokenCount);
  const cachedTokens = Math.min(count(meta.cachedContentTokenCount), promptTokens);
  return { promptTokens, completionTokens, cachedTokens };
}

/** Usage as an OpenAI `usage` object (reasoning tokens reported in completion details). */
export function openAiUsageOf(usage: Usage, reasoningTokens = 0): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}
