import { RelayError } from '../../errors.js';
import type { Json } from '@modelgate/shared';

/** Gemini's `logprobs` (top candidates per step) takes 0–20, as OpenAI's `top_logprobs` does. */
const maxTopLogprobs = 20;

const badParameter = (message: string) => new RelayError(400, 'invalid_request', message, false, 'invalid_request_error');

/**
 * OpenAI's `logprobs` / `top_logprobs` → generationConfig's `responseLogprobs` / `logprobs`. As on
 * OpenAI, `top_logprobs` is an integer from 0 to 20 and needs `logprobs: true`.
 */
export function logprobsConfig(body: Json): { responseLogprobs?: boolean; logprobs?: number } {
  const top = body.top_logprobs;
  const hasTop = top !== undefined && top !== null;
  if (hasTop && (typeof top !== 'number' || !Number.isInteger(top) || top < 0 || top > maxTopLogprobs)) {
    throw badParameter(`top_logprobs 必须是 0 到 ${maxTopLogprobs} 之间的整数`);
  }
  if (body.logprobs !== true) {
    if (hasTop && top > 0) throw badParameter('使用 top_logprobs 时 logprobs 必须为 true');
    return {};
  }
  return hasTop ? { responseLogprobs: true, logprobs: top } : { responseLogprobs: true };
}

const encoder = new TextEncoder();

/** One Gemini logprobs candidate → an OpenAI token entry; null when the upstream sent no usable one. */
function tokenOf(candidate: unknown): { token: string; logprob: number; bytes: number[] } | null {
  if (!candidate || typeof candidate !== 'object') return null;
  const { token, logProbability } = candidate as Json;
  if (typeof token !== 'string' || typeof logProbability !== 'number' || !Number.isFinite(logProbability)) return null;
  return { token, logprob: logProbability, bytes: Array.from(encoder.encode(token)) };
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * A candidate's `logprobsResult` → OpenAI's `choice.logprobs` (`content`: one entry per chosen token,
 * with that step's top candidates); null when the candidate carries none.
 */
export function openAiLogprobsOf(result: unknown): Json | null {
  if (!result || typeof result !== 'object') return null;
  const { chosenCandidates, topCandidates } = result as Json;
  const tops = listOf(topCandidates);
  const content: Json[] = [];
  listOf(chosenCandidates).forEach((chosen, step) => {
    const entry = tokenOf(chosen);
    if (!entry) return;
    const top = listOf((tops[step] as Json | undefined)?.candidates)
      .map(tokenOf)
      .filter((item) => item !== null);
    content.push({ ...entry, top_logprobs: top });
  });
  return { content, refusal: null };
}
