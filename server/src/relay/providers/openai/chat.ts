import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';

const reasoningModel = /^(o1|o3|o4|gpt-5)/;

/** OpenAI's o-series and gpt-5 take max_completion_tokens, not max_tokens. */
export function prepareOpenAiChatBody(body: Record<string, unknown>): void {
  const model = typeof body.model === 'string' ? body.model : '';
  if (reasoningModel.test(model) && body.max_tokens !== undefined && body.max_completion_tokens === undefined) {
    body.max_completion_tokens = body.max_tokens;
    delete body.max_tokens;
  }
}

/** OpenAI takes up to 4 stop sequences, and none on its o-series and gpt-5 (a 400 "Unsupported parameter: 'stop'"). */
export const openAiStopSequenceLimit = (model: string): number => (reasoningModel.test(model) ? 0 : 4);

/** Usage counters are untrusted: non-negative safe integers (billing/usage-count.ts). */
const num = usageCount;

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

const usageKey = '"usage"';
/** What may follow the top-level usage object: scalar members, then the end of the root object. */
const scalarTail = /^\s*(?:,\s*"(?:[^"\\]|\\.)*"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?[\d.eE+-]+|null|true|false)\s*)*\}\s*$/;
const maxTail = 4096;
const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * Usage of an OpenAI-wire JSON response read from its tail: the last `"usage"` key, when its value
 * is an object followed only by scalar members and the end of the root object (so it is the root's
 * own usage, as JSON.parse would give it). Only that object is parsed. undefined when it cannot
 * tell (no usage, usage not at the top level or not near the end): then parse the whole body.
 */
export function readOpenAiUsageFromBytes(body: Buffer, options: UsageReadOptions = {}): Usage | undefined {
  const at = body.lastIndexOf(usageKey);
  if (at < 0 || body.length - at > maxTail) return undefined;
  let i = at + usageKey.length;
  while (isSpace(body[i])) i += 1;
  if (body[i] !== 0x3a /* : */) return undefined;
  i += 1;
  while (isSpace(body[i])) i += 1;
  if (body[i] !== 0x7b /* { */) return undefined;
  const start = i;
  let depth = 0;
  let isInString = false;
  for (; i < body.length; i += 1) {
    const byte = body[i];
    if (isInString) {
      if (byte === 0x5c /* \ */) i += 1;
      else if (byte === 0x22) isInString = false;
    } else if (byte === 0x22) {
      isInString = true;
    } else if (byte === 0x7b) {
      depth += 1;
    } else if (byte === 0x7d && --depth === 0) {
      break;
    }
  }
  if (depth !== 0 || !scalarTail.test(body.toString('utf8', i + 1))) return undefined;
  try {
    return readOpenAiUsage(JSON.parse(body.toString('utf8', start, i + 1)), options) ?? undefined;
  } catch {
    return undefined;
  }
}
