import { parseOpenAiError } from '../openai/errors.js';
import type { ChatConverter, ProviderAdapter, UpstreamTarget } from '../types.js';
import { buildCohereHeaders, buildCohereUrl } from './api.js';
import { fetchCohereModels } from './models.js';
import { buildCohereChatRequest } from './request.js';
import { buildCohereRerankRequest, parseCohereRerank } from './rerank.js';
import { createCohereStreamTransform, parseCohereChat, readCohereUsage } from './response.js';

export { buildCohereRerankRequest, parseCohereRerank } from './rerank.js';

/** Cohere v1 chat; its stream is newline-delimited JSON (`event_type` on each line). */
export const cohereChatConverter: ChatConverter = {
  framing: 'ndjson',
  buildRequest: buildCohereChatRequest,
  parseResponse: parseCohereChat,
  createStreamTransform: createCohereStreamTransform,
  // Cohere's chat takes up to 5 stop_sequences.
  stopSequenceLimit: () => 5,
};

/** Errors are `{"message": "..."}` (read by the OpenAI parser's bare-message branch). */
export const parseCohereError = parseOpenAiError;

export function validateCohereChannel(key: string): string | null {
  return key.trim() ? null : 'Cohere 需要填写 API Key';
}

/** Cohere (type 34): v1 chat and rerank. */
export const cohereAdapter = {
  slug: 'cohere',
  chatConverter: cohereChatConverter,
  rerankConverter: { buildRequest: buildCohereRerankRequest, parseResponse: parseCohereRerank },
  meta: {
    type: 34,
    displayName: 'Cohere',
    keyHint: 'Cohere API Key（Bearer）',
    defaultBaseURL: 'https://api.cohere.ai',
    extraFields: [],
    defaultModels: ['command-r-plus', 'command-r', 'command-r7b-12-2024', 'command-a-03-2025', 'rerank-v3.5', 'rerank-multilingual-v3.0'],
  },
  endpoints: new Set(['chat', 'rerank'] as const),
  api: { url: buildCohereUrl, headers: buildCohereHeaders },
  chat: { prepareBody: () => undefined, readUsage: readCohereUsage },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({
      onChunk: (chunk) => ({
        text: typeof chunk.text === 'string' ? chunk.text : '',
        usage: chunk.event_type === 'stream-end' ? readCohereUsage((chunk.response as Record<string, unknown>) ?? {}) : null,
        isUsageOnly: false,
        isModified: false,
      }),
    }),
  },
  embeddings: { readUsage: readCohereUsage },
  errors: { parse: parseCohereError },
  validateChannel: (key: string, _other: string, _baseURL: string) => validateCohereChannel(key),
  fetchModels: (target: UpstreamTarget) => fetchCohereModels(target),
} satisfies ProviderAdapter & Record<string, unknown>;
