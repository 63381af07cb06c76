import { parseOpenAiError } from '../openai/errors.js';
import type { ChatConverter, ProviderAdapter, UpstreamTarget } from '../types.js';
import { buildOllamaHeaders, buildOllamaUrl } from './api.js';
import { fetchOllamaModels } from './models.js';
import { buildOllamaChatRequest, buildOllamaEmbedRequest, buildOllamaGenerateRequest } from './request.js';
import { createOllamaStreamTransform, parseOllamaChat, parseOllamaEmbed, parseOllamaGenerate, readOllamaUsage } from './response.js';

export { buildOllamaEmbedRequest, buildOllamaGenerateRequest } from './request.js';
export { createOllamaStreamTransform, parseOllamaEmbed, parseOllamaGenerate } from './response.js';

/** Native `/api/chat` with NDJSON streams. */
export const ollamaChatConverter: ChatConverter = {
  framing: 'ndjson',
  buildRequest: buildOllamaChatRequest,
  parseResponse: parseOllamaChat,
  createStreamTransform: (model) => createOllamaStreamTransform(model, 'chat'),
  // options.stop has no stated limit.
  stopSequenceLimit: () => Number.POSITIVE_INFINITY,
};

/** Native `/api/generate` for `/v1/completions`. */
export const ollamaCompletionsConverter: ChatConverter = {
  framing: 'ndjson',
  buildRequest: buildOllamaGenerateRequest,
  parseResponse: parseOllamaGenerate,
  createStreamTransform: (model) => createOllamaStreamTransform(model, 'completion'),
};

/** Ollama (type 4) on its native API: /api/chat, /api/generate, /api/embed, /api/tags. */
export const ollamaAdapter = {
  slug: 'ollama',
  chatConverter: ollamaChatConverter,
  completionsConverter: ollamaCompletionsConverter,
  embeddingsConverter: { buildRequest: buildOllamaEmbedRequest, parseResponse: parseOllamaEmbed },
  meta: {
    type: 4,
    displayName: 'Ollama',
    keyHint: '可不填；仅当 Ollama 前有鉴权代理时填写（Bearer）',
    defaultBaseURL: 'http://localhost:11434',
    extraFields: [{ name: 'base_url', label: 'Ollama 地址', placeholder: 'http://localhost:11434' }],
    defaultModels: ['llama3.1', 'qwen2.5', 'nomic-embed-text'],
  },
  endpoints: new Set(['chat', 'completions', 'embeddings'] as const),
  api: { url: buildOllamaUrl, headers: buildOllamaHeaders },
  // The OpenAI-wire members read native JSON too, for callers that only look at usage.
  chat: { prepareBody: () => undefined, readUsage: readOllamaUsage },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({
      onChunk: (chunk) => ({ text: '', usage: chunk.done === true ? readOllamaUsage(chunk) : null, isUsageOnly: false, isModified: false }),
    }),
  },
  embeddings: { readUsage: readOllamaUsage },
  errors: { parse: parseOpenAiError },
  fetchModels: (target: UpstreamTarget) => fetchOllamaModels(target),
} satisfies ProviderAdapter & Record<string, unknown>;
