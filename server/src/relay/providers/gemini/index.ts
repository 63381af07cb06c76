import type { ChunkTransform, ProviderAdapter } from '../types.js';
import { geminiHeaders, geminiUrl } from './api.js';
import { geminiChatConverter } from './converter.js';
import { buildGeminiEmbeddingsRequest, parseGeminiEmbeddings } from './embeddings.js';
import { parseGoogleError } from './errors.js';
import { fetchGeminiModels } from './models.js';
import { geminiNativeWire, textOfResponse } from './native.js';
import { readGeminiUsage } from './usage.js';

/** Reads text and usage from Gemini stream events passing through unchanged. */
function createGeminiChunkTransform(): ChunkTransform {
  return {
    onChunk: (chunk) => ({
      text: textOfResponse(chunk),
      usage: readGeminiUsage(chunk.usageMetadata),
      isUsageOnly: false,
      isModified: false,
    }),
  };
}

/** Google Gemini API (channel type 24). */
export const geminiAdapter: ProviderAdapter = {
  slug: 'gemini',
  wire: 'gemini',
  chatConverter: geminiChatConverter,
  native: geminiNativeWire,
  embeddingsConverter: { buildRequest: buildGeminiEmbeddingsRequest, parseResponse: parseGeminiEmbeddings },
  meta: {
    type: 24,
    displayName: 'Google Gemini',
    keyHint: 'Gemini API Key（AIza...，来自 Google AI Studio）',
    defaultBaseURL: 'https://generativelanguage.googleapis.com',
    extraFields: [],
    defaultModels: [
      'gemini-2.5-pro',
      'gemini-2.5-flash',
      'gemini-2.5-flash-lite',
      'gemini-3-pro-preview',
      'gemini-3-flash-preview',
      'gemini-2.0-flash',
      'gemini-2.0-flash-lite',
      'gemini-embedding-001',
      'text-embedding-004',
    ],
  },
  endpoints: new Set(['chat', 'embeddings']),
  api: { url: (endpoint, target, model) => geminiUrl(endpoint, target, model), headers: geminiHeaders },
  chat: { prepareBody: () => undefined, readUsage: (response) => readGeminiUsage(response.usageMetadata) },
  chatStream: { supportsStreamUsage: true, createTransform: createGeminiChunkTransform },
  embeddings: { readUsage: () => null },
  errors: { parse: parseGoogleError },
  fetchModels: fetchGeminiModels,
};
