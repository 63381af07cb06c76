import type { Usage } from '../../billing/quota.js';
import { readEmbeddingUsage } from '../openai/embeddings.js';
import { createOpenAiCompatible } from '../openai/index.js';
import type { ProviderAdapter } from '../types.js';
import type { Json } from '@modelgate/shared';

/**
 * Rerank body for `POST /v1/rerank` `{model, query, documents, top_n, return_documents}`: documents
 * given as `{text}` objects are sent as strings (Jina takes both); unknown fields are dropped.
 */
export function prepareJinaRerankBody(body: Json, upstreamModel: string): Json {
  const documents = Array.isArray(body.documents)
    ? (body.documents as unknown[]).map((doc) =>
        doc && typeof doc === 'object' && typeof (doc as Json).text === 'string' ? (doc as Json).text : doc,
      )
    : body.documents;
  const out: Json = { model: upstreamModel, query: body.query, documents };
  if (typeof body.top_n === 'number') out.top_n = body.top_n;
  if (typeof body.return_documents === 'boolean') out.return_documents = body.return_documents;
  return out;
}

/** Embeddings and rerank both report `usage.total_tokens` (prompt tokens only). */
export const readJinaUsage = (response: Json): Usage | null => readEmbeddingUsage(response);

export function validateJinaChannel(key: string): string | null {
  if (!key.trim()) return 'Jina 需要填写 API Key';
  return key.trim().startsWith('jina_') ? null : 'Jina 的 API Key 以 jina_ 开头';
}

const base = createOpenAiCompatible({
  slug: 'jina',
  type: 38,
  displayName: 'Jina',
  defaultBaseURL: 'https://api.jina.ai',
  keyHint: 'jina_...（Bearer）',
  defaultModels: ['jina-embeddings-v3', 'jina-clip-v2', 'jina-reranker-v2-base-multilingual', 'jina-reranker-m0'],
  endpoints: ['embeddings', 'rerank'],
});

/** Jina (type 38): OpenAI-like `/v1/embeddings` and Jina `/v1/rerank`. */
export const jinaAdapter = {
  ...base,
  embeddings: { readUsage: readJinaUsage },
  rerankConverter: {
    buildRequest: (body, call) => ({
      url: base.api.url('rerank', call.target, call.upstreamModel),
      headers: { ...base.api.headers(call.target), 'content-type': 'application/json' },
      body: prepareJinaRerankBody(body, call.upstreamModel),
    }),
    parseResponse: (json) => ({ response: json, usage: readJinaUsage(json) }),
  },
  validateChannel: (key: string, _other: string, _baseURL: string) => validateJinaChannel(key),
} satisfies ProviderAdapter & Record<string, unknown>;
