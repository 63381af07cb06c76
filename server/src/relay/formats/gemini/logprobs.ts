import type { Json } from '@modelgate/shared';

/** generationConfig's `responseLogprobs` / `logprobs` → OpenAI's `logprobs` / `top_logprobs`. */
export function openAiLogprobsAsk(config: Json): Json {
  if (config.responseLogprobs !== true) return {};
  return typeof config.logprobs === 'number' ? { logprobs: true, top_logprobs: config.logprobs } : { logprobs: true };
}

const candidateOf = (entry: Json) => ({
  token: String(entry.token ?? ''),
  logProbability: typeof entry.logprob === 'number' ? entry.logprob : 0,
});

/**
 * OpenAI's `choice.logprobs` → Gemini's `logprobsResult` (one chosen candidate and one list of top
 * candidates per step); null when the choice carries none.
 */
export function logprobsResultOf(logprobs: unknown): Json | null {
  const content = (logprobs as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const entries = content.filter((entry): entry is Json => Boolean(entry) && typeof entry === 'object');
  return {
    chosenCandidates: entries.map(candidateOf),
    topCandidates: entries.map((entry) => ({
      candidates: (Array.isArray(entry.top_logprobs) ? (entry.top_logprobs as Json[]) : [])
        .filter((top) => top && typeof top === 'object')
        .map(candidateOf),
    })),
  };
}
