import { parseOpenAiError } from '../openai/errors.js';
import type { ChatConverter, ProviderAdapter } from '../types.js';
import { buildLibraryRequest, libraryAskUrl, libraryHeaders } from './request.js';
import { createLibraryStreamTransform, parseLibraryResponse } from './response.js';

/** The library id is the channel's `other`: without it every question fails. */
export function validateLibraryChannel(key: string, other: string): string | null {
  if (!key.trim()) return '请填写 AI Proxy 的 API Key';
  if (!other.trim()) return '请在「其他」中填写知识库 ID（libraryId）';
  return null;
}

/** `POST /api/library/ask`: one question (the last user message) to one library, SSE when streaming. */
export const libraryChatConverter: ChatConverter = {
  framing: 'sse',
  buildRequest: buildLibraryRequest,
  parseResponse: parseLibraryResponse,
  createStreamTransform: createLibraryStreamTransform,
};

/** AI Proxy library (type 21): a knowledge base answering with its documents as references. */
export const aiProxyLibraryAdapter = {
  slug: 'aiproxy-library',
  chatConverter: libraryChatConverter,
  meta: {
    type: 21,
    displayName: '知识库：AI Proxy',
    keyHint: 'AI Proxy API Key（Bearer）；知识库 ID 填在「其他」',
    defaultBaseURL: 'https://api.aiproxy.io',
    extraFields: [{ name: 'other', label: '知识库 ID（libraryId）', placeholder: 'library id', required: true }],
    defaultModels: ['gpt-3.5-turbo', 'gpt-4o-mini'],
  },
  endpoints: new Set(['chat'] as const),
  api: { url: (_endpoint, target) => libraryAskUrl(target), headers: libraryHeaders },
  chat: { prepareBody: () => undefined, readUsage: () => null },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({ onChunk: () => ({ text: '', usage: null, isUsageOnly: false, isModified: false }) }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseOpenAiError },
  validateChannel: (key: string, other: string, _baseURL: string) => validateLibraryChannel(key, other),
} satisfies ProviderAdapter & Record<string, unknown>;
