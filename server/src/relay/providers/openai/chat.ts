import type { Usage } from '../../billing/quota.js';

const reasoningModel = /^(o1|o3|o4|gpt-5)/;

/** OpenAI's o-series and gpt-5 take max_completion_tokens, not max_tokens. */
export function prepareOpenAiChatBody(body: Record<string, unknown>): void {
  const model = typeof body.model === 'string' ? body.model : '';
  if (reasoningModel.test(model) && body.max_tokens !== undefined && body.max_completion_tokens === undefined) {
    body.max_completion_tokens = body.max_tokens;
    delete body.max_tokens;
  }
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export interface UsageReadOptions {
  /** xAI: completion_tokens leaves out reasoning tokens, so completion = total − prompt. */
  isCompletionFromTotal?: boolean;
}

/** OpenAI usage (with DeepSeek's prompt_cache_hit_tokens as cached tokens); null when absent. */
export function readOpenAiUsage(raw: unknown, options: UsageReadOptions = {}): Usage | null {
  if (!raw || typeof raw !== 'object') return null;
  const usage = raw as Record<string, unknown>;
  const details = usage.prompt_tokens_details as Record<string, unknown> | undefined;
  const promptTokens = num(usage.prompt_tokens ?? usage.input_tokens);
  let completionTokens = num(usage.completion_tokens ?? usage.output_tokens);
  if (options.isCompletionFromTotal && num(usage.total_tokens) > promptTokens) completionTokens = num(usage.total_tokens) - promptTokens;
  if (usage.prompt_tokens === undefined && usage.input_tokens === undefined && usage.total_tokens !== undefined && completionTokens === 0) {
    // Embeddings and rerank report total_tokens only.
    return { promptTokens: num(usage.total_tokens), completionTokens: 0, cachedTokens: 0 };
  }
  const cachedTokens = num(details?.cached_tokens ?? usage.prompt_cache_hit_tokens);
  return { promptTokens, completionTokens, cachedTokens };
}
