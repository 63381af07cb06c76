import type { ChatConverter, ProviderAdapter } from '../types.js';
import { baiduDefaultBaseURL, baiduUrl, splitBaiduKey } from './api.js';
import { baiduEmbeddingsConverter } from './embeddings.js';
import { parseBaiduError } from './errors.js';
import { buildBaiduChatRequest } from './request.js';
import { createBaiduStreamTransform, parseBaiduResponse, readBaiduUsage } from './response.js';

export function validateBaiduKey(key: string): string | null {
  return splitBaiduKey(key) ? null : '百度文心千帆的密钥格式为 APIKey|SecretKey';
}

/** wenxinworkshop chat: an access token in the query; streams are `data:` lines read as NDJSON (see response.ts). */
export const baiduChatConverter: ChatConverter = {
  framing: 'ndjson',
  buildRequest: buildBaiduChatRequest,
  parseResponse: parseBaiduResponse,
  createStreamTransform: createBaiduStreamTransform,
  // ERNIE takes up to 4 `stop` strings.
  stopSequenceLimit: () => 4,
};

/** Baidu ERNIE, the old wenxinworkshop API (channel type 15): `APIKey|SecretKey` → OAuth access token. */
export const baiduAdapter: ProviderAdapter = {
  slug: 'baidu',
  chatConverter: baiduChatConverter,
  embeddingsConverter: baiduEmbeddingsConverter,
  meta: {
    type: 15,
    displayName: '百度文心千帆',
    keyHint: '按照如下格式输入：APIKey|SecretKey',
    defaultBaseURL: baiduDefaultBaseURL,
    extraFields: [],
    defaultModels: [
      'ERNIE-4.0-8K',
      'ERNIE-4.0-Turbo-8K',
      'ERNIE-3.5-8K',
      'ERNIE-3.5-128K',
      'ERNIE-Speed-8K',
      'ERNIE-Speed-128K',
      'ERNIE-Lite-8K',
      'ERNIE-Tiny-8K',
      'Embedding-V1',
      'bge-large-zh',
      'bge-large-en',
      'tao-8k',
    ],
  },
  endpoints: new Set(['chat', 'embeddings']),
  validateChannel: (key) => validateBaiduKey(key),
  api: {
    // Without the access token: the relay sends what the converters build (token included).
    url: baiduUrl,
    headers: (target) => ({ ...target.headers, 'content-type': 'application/json' }),
  },
  chat: { prepareBody: () => undefined, readUsage: (response) => readBaiduUsage(response.usage) },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({
      onChunk: (chunk) => ({
        text: typeof chunk.result === 'string' ? chunk.result : '',
        usage: readBaiduUsage(chunk.usage),
        isUsageOnly: false,
        isModified: false,
      }),
    }),
  },
  embeddings: { readUsage: (response) => readBaiduUsage(response.usage) },
  errors: { parse: parseBaiduError },
};
