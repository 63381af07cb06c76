import { readOpenAiUsage } from '../openai/chat.js';
import { createOpenAiChunkTransform } from '../openai/chat-stream.js';
import type { ChatConverter, ProviderAdapter } from '../types.js';
import { miniMaxApi } from './api.js';
import { buildMiniMaxChatRequest, createMiniMaxStreamTransform, parseMiniMaxChat } from './chat.js';
import { buildMiniMaxEmbeddingsRequest, parseMiniMaxEmbeddings, readMiniMaxEmbeddingUsage } from './embeddings.js';
import { parseMiniMaxError } from './errors.js';

/**
 * MiniMax chatcompletion_v2 speaks OpenAI's wire but answers failures with HTTP 200 and
 * `base_resp`, which the OpenAI pass-through cannot see: so it is a converter that checks them.
 */
export const miniMaxChatConverter: ChatConverter = {
  framing: 'sse-raw',
  buildRequest: buildMiniMaxChatRequest,
  parseResponse: parseMiniMaxChat,
  createStreamTransform: createMiniMaxStreamTransform,
};

export function validateMiniMaxChannel(key: string): string | null {
  return key.trim() ? null : 'MiniMax 需要填写 API Key';
}

/** MiniMax (type 35): chat and embeddings. */
export const miniMaxAdapter = {
  slug: 'minimax',
  chatConverter: miniMaxChatConverter,
  embeddingsConverter: { buildRequest: buildMiniMaxEmbeddingsRequest, parseResponse: parseMiniMaxEmbeddings },
  meta: {
    type: 35,
    displayName: 'MiniMax',
    keyHint: 'MiniMax API Key（Bearer）；旧账号的向量接口需要 GroupId，填在「其他」',
    defaultBaseURL: 'https://api.minimax.chat',
    extraFields: [{ name: 'other', label: 'GroupId（可选，仅向量接口）', placeholder: '1782658868262748467' }],
    defaultModels: ['MiniMax-M1', 'MiniMax-Text-01', 'abab6.5s-chat', 'embo-01'],
  },
  endpoints: new Set(['chat', 'embeddings'] as const),
  api: miniMaxApi,
  chat: { prepareBody: () => undefined, readUsage: (json) => readOpenAiUsage(json.usage) },
  chatStream: { supportsStreamUsage: true, createTransform: () => createOpenAiChunkTransform({}) },
  embeddings: { readUsage: readMiniMaxEmbeddingUsage },
  errors: { parse: parseMiniMaxError },
  validateChannel: (key: string) => validateMiniMaxChannel(key),
} satisfies ProviderAdapter & Record<string, unknown>;
