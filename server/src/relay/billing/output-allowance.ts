/**
 * How many output tokens a model may produce when the request sets no max_tokens: the upstream's
 * own default (the model's maximum output for OpenAI, Gemini and DeepSeek; for Claude the
 * max_tokens our Claude adapters send by default, see claude.default_max_tokens). The hold of a
 * request without max_tokens covers this, so it never underestimates the answer (docs/billing.md).
 * First matching prefix wins: more specific prefixes come first.
 */
const outputAllowances: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  // OpenAI
  ['gpt-5', 128_000],
  ['gpt-4.1', 32_768],
  ['gpt-4o-mini-audio', 16_384],
  ['gpt-4o', 16_384],
  ['chatgpt-4o', 16_384],
  ['gpt-4-turbo', 4_096],
  ['gpt-4-1106', 4_096],
  ['gpt-4-0125', 4_096],
  ['gpt-4-vision', 4_096],
  ['gpt-4', 8_192],
  ['gpt-3.5', 4_096],
  ['o1-mini', 65_536],
  ['o1', 100_000],
  ['o3', 100_000],
  ['o4-mini', 100_000],
  // Anthropic: what the Claude adapters send without max_tokens (4096 for the legacy models, else 8192)
  ['claude-instant', 4_096],
  ['claude-2', 4_096],
  ['claude-3-haiku', 4_096],
  ['claude-3-opus', 4_096],
  ['claude-3-sonnet', 4_096],
  ['claude-', 8_192],
  // Google
  ['gemini-2.5', 65_536],
  ['gemini-3', 65_536],
  ['gemini-1.0', 2_048],
  ['gemini-pro', 2_048],
  ['gemini-', 8_192],
  // DeepSeek (the API's defaults: 4K for chat, 32K for the reasoner)
  ['deepseek-reasoner', 32_768],
  ['deepseek-r1', 32_768],
  ['deepseek-chat', 4_096],
];

/** The allowance for models not in the table: the common ceiling of current chat models' default output. */
export const fallbackOutputAllowance = 16_384;

/** Output tokens to hold for a request without max_tokens (see outputAllowances). */
export function outputAllowance(model: string): number {
  let tokens = allowanceCache.get(model);
  if (tokens !== undefined) return tokens;
  tokens = fallbackOutputAllowance;
  for (const [prefix, allowance] of outputAllowances) {
    if (model.startsWith(prefix)) {
      tokens = allowance;
      break;
    }
  }
  // Model names come from clients: the cache is bounded.
  if (allowanceCache.size >= 1024) allowanceCache.clear();
  allowanceCache.set(model, tokens);
  return tokens;
}

const allowanceCache = new Map<string, number>();
