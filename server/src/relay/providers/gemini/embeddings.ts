import type { Usage } from '../../billing/quota.js';
import type { ChatCall, UpstreamRequest } from '../types.js';
import { geminiBase, geminiHeaders } from './api.js';
import { versionFor } from './settings.js';
import type { Json } from '@modelgate/shared';

function inputsOf(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input)) return input.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  return [];
}

/** OpenAI embeddings body → `:batchEmbedContents` `{requests[{model, content{parts}, outputDimensionality}]}`. */
export function buildGeminiEmbeddingsRequest(body: Json, call: ChatCall): UpstreamRequest {
  const model = call.upstreamModel;
  const version = versionFor(call.options, model);
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : undefined;
  const requests = inputsOf(body.input).map((text) => {
    const request: Json = { model: `models/${model}`, content: { parts: [{ text }] } };
    if (dimensions) request.outputDimensionality = dimensions;
    return request;
  });
  return {
    url: `${geminiBase(call.target.baseURL)}/${version}/models/${encodeURIComponent(model)}:batchEmbedContents`,
    headers: geminiHeaders(call.target),
    body: { requests },
  };
}

/** `{embeddings[{values}]}` → OpenAI list. Gemini reports no usage, so it is null (count the input). */
export function parseGeminiEmbeddings(json: Json, model: string): { response: Json; usage: Usage | null } {
  const embeddings = (Array.isArray(json.embeddings) ? json.embeddings : []) as Array<{ values?: unknown }>;
  return {
    response: {
      object: 'list',
      data: embeddings.map((embedding, index) => ({
        object: 'embedding',
        index,
        embedding: Array.isArray(embedding.values) ? embedding.values : [],
      })),
      model,
      usage: { prompt_tokens: 0, total_tokens: 0 },
    },
    usage: null,
  };
}
