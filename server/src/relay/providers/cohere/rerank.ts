import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import type { ChatCall, UpstreamRequest } from '../types.js';
import { buildCohereHeaders, buildCohereUrl } from './api.js';
import type { Json } from '@modelgate/shared';

/** Jina-style rerank body `{model, query, documents, top_n, return_documents}` → Cohere `/v1/rerank`. */
export function buildCohereRerankRequest(body: Json, call: ChatCall): UpstreamRequest {
  const out: Json = { model: call.upstreamModel, query: body.query, documents: body.documents };
  if (typeof body.top_n === 'number') out.top_n = body.top_n;
  if (typeof body.return_documents === 'boolean') out.return_documents = body.return_documents;
  if (typeof body.max_chunks_per_doc === 'number') out.max_chunks_per_doc = body.max_chunks_per_doc;
  return { url: buildCohereUrl('rerank', call.target, call.upstreamModel), headers: buildCohereHeaders(call.target), body: out };
}

export interface CohereRerankResult {
  /** Jina/OpenAI-style rerank answer: `results[{index, relevance_score, document{text}}]`. */
  response: Json;
  /** Token usage when Cohere reports tokens; search-unit billing is in `calls`. */
  usage: Usage | null;
  /** Billed search units (at least 1): rerank is billed per call × search units (model price). */
  calls: number;
}

const documentOf = (raw: unknown): Json | undefined => {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return { text: raw };
  return raw as Json;
};

export function parseCohereRerank(json: Json, model: string): CohereRerankResult {
  const results = Array.isArray(json.results) ? (json.results as Json[]) : [];
  const meta = json.meta as { billed_units?: { search_units?: number; input_tokens?: number } } | undefined;
  const searchUnits = meta?.billed_units?.search_units === undefined ? 1 : Math.max(1, usageCount(meta.billed_units.search_units));
  const inputTokens = meta?.billed_units?.input_tokens === undefined ? undefined : usageCount(meta.billed_units.input_tokens);
  return {
    response: {
      id: json.id,
      model,
      results: results.map((result) => {
        const document = documentOf(result.document);
        return { index: result.index, relevance_score: result.relevance_score, ...(document ? { document } : {}) };
      }),
      usage: { search_units: searchUnits, ...(typeof inputTokens === 'number' ? { total_tokens: inputTokens } : {}) },
    },
    usage: typeof inputTokens === 'number' ? { promptTokens: inputTokens, completionTokens: 0, cachedTokens: 0 } : null,
    calls: Math.max(1, searchUnits),
  };
}
