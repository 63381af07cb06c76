import type { Usage } from '../../billing/quota.js';
import type { ChatCall, EmbeddingsConverter, UpstreamRequest } from '../types.js';
import { baiduUrl, withAccessToken } from './api.js';
import { baiduAccessToken } from './request.js';
import { readBaiduUsage, throwIfBaiduError } from './response.js';
import type { Json } from '@modelgate/shared';

/** OpenAI `input` (a string or a list of strings) → Baidu's `input` list. */
const inputsOf = (input: unknown): string[] =>
  Array.isArray(input)
    ? input.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    : [typeof input === 'string' ? input : String(input ?? '')];

async function buildBaiduEmbeddingsRequest(body: Json, call: ChatCall): Promise<UpstreamRequest> {
  const token = await baiduAccessToken(call);
  const out: Json = { input: inputsOf(body.input) };
  if (typeof body.user === 'string' && body.user) out.user_id = body.user;
  return {
    url: withAccessToken(baiduUrl('embeddings', call.target, call.upstreamModel), token),
    headers: { ...call.target.headers, 'content-type': 'application/json' },
    body: out,
  };
}

/** `{data[{embedding, index}], usage{prompt_tokens, total_tokens}}` → OpenAI embeddings. */
function parseBaiduEmbeddings(json: Json, model: string): { response: Json; usage: Usage | null } {
  throwIfBaiduError(json);
  const data = (Array.isArray(json.data) ? (json.data as Json[]) : []).map((item, position) => ({
    object: 'embedding',
    index: typeof item.index === 'number' ? item.index : position,
    embedding: Array.isArray(item.embedding) ? item.embedding : [],
  }));
  const read = readBaiduUsage(json.usage);
  // Embeddings have no completion: every token is a prompt token.
  const usage = read ? { promptTokens: read.promptTokens, completionTokens: 0, cachedTokens: 0 } : null;
  const response: Json = { object: 'list', data, model };
  if (usage) response.usage = { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens };
  return { response, usage };
}

export const baiduEmbeddingsConverter: EmbeddingsConverter = {
  buildRequest: buildBaiduEmbeddingsRequest,
  parseResponse: parseBaiduEmbeddings,
};
