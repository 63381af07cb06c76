import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import type { ChatCall, UpstreamRequest } from '../types.js';
import { miniMaxApi } from './api.js';
import { miniMaxErrorOf } from './errors.js';
import type { Json } from '@modelgate/shared';

/**
 * OpenAI embeddings → MiniMax `{model, texts, type}`. `type` is 'db' (texts to store) unless the
 * body says 'query' (texts to search with); OpenAI has no such field.
 */
export function buildMiniMaxEmbeddingsRequest(body: Json, call: ChatCall): UpstreamRequest {
  const input = body.input;
  const texts = Array.isArray(input)
    ? input.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    : [typeof input === 'string' ? input : ''];
  const out = { model: call.upstreamModel, texts, type: body.type === 'query' ? 'query' : 'db' };
  return { url: miniMaxApi.url('embeddings', call.target, call.upstreamModel), headers: miniMaxApi.headers(call.target), body: out };
}

/** `total_tokens` (all prompt tokens); null when absent. */
export function readMiniMaxEmbeddingUsage(json: Json): Usage | null {
  return json.total_tokens === undefined ? null : { promptTokens: usageCount(json.total_tokens), completionTokens: 0, cachedTokens: 0 };
}

/** `{vectors, total_tokens, base_resp}` → OpenAI `{object:'list', data, model, usage}`; failures throw. */
export function parseMiniMaxEmbeddings(json: Json, model: string): { response: Json; usage: Usage | null } {
  const failure = miniMaxErrorOf(json, JSON.stringify(json).slice(0, 2000));
  if (failure) throw failure;
  const vectors = Array.isArray(json.vectors) ? (json.vectors as unknown[]) : [];
  const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding: Array.isArray(embedding) ? embedding : [] }));
  const usage = readMiniMaxEmbeddingUsage(json);
  const response: Json = { object: 'list', data, model };
  if (usage) response.usage = { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens };
  return { response, usage };
}
