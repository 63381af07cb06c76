import type { ChatConverter, ProviderAdapter } from '../types.js';
import { hunyuanUrl } from './api.js';
import { buildHunyuanEmbeddingsRequest, parseHunyuanEmbeddings } from './embeddings.js';
import { parseHunyuanError } from './errors.js';
import { validateHunyuanChannel } from './key.js';
import { buildHunyuanChatRequest } from './request.js';
import { createHunyuanStreamTransform, parseHunyuanResponse, readHunyuanUsage } from './response.js';
import type { Json } from '@modelgate/shared';

const usageOfAnswer = (json: Json) => readHunyuanUsage(((json.Response as Json | undefined) ?? json).Usage);

/**
 * Hunyuan streams `data:` lines; they are read as lines ('ndjson' framing, the `data:` prefix
 * stripped by the transform) so that a plain JSON error body answered to a stream request is
 * seen and thrown rather than skipped as a non-SSE line.
 */
export const hunyuanChatConverter: ChatConverter = {
  framing: 'ndjson',
  buildRequest: (body, call) => buildHunyuanChatRequest(body, call),
  parseResponse: parseHunyuanResponse,
  createStreamTransform: createHunyuanStreamTransform,
};

/** Tencent Hunyuan (type 23): Tencent Cloud API 3.0, every call signed with TC3-HMAC-SHA256. */
export const hunyuanAdapter = {
  slug: 'hunyuan',
  chatConverter: hunyuanChatConverter,
  embeddingsConverter: { buildRequest: (body, call) => buildHunyuanEmbeddingsRequest(body, call), parseResponse: parseHunyuanEmbeddings },
  meta: {
    type: 23,
    displayName: '腾讯混元',
    keyHint: 'AppId|SecretId|SecretKey（AppId 可省略；TC3-HMAC-SHA256 签名）；地域（可选）填在「其他」',
    defaultBaseURL: 'https://hunyuan.tencentcloudapi.com',
    extraFields: [{ name: 'other', label: '地域 X-TC-Region（可选）', placeholder: 'ap-guangzhou' }],
    defaultModels: [
      'hunyuan-lite',
      'hunyuan-standard',
      'hunyuan-standard-256K',
      'hunyuan-pro',
      'hunyuan-turbo',
      'hunyuan-turbos-latest',
      'hunyuan-large',
      'hunyuan-t1-latest',
      'hunyuan-embedding',
    ],
  },
  endpoints: new Set(['chat', 'embeddings'] as const),
  api: {
    url: (_endpoint, target) => hunyuanUrl(target),
    // The signature covers the body: the converters build the complete, signed headers.
    headers: () => ({ 'content-type': 'application/json' }),
  },
  chat: { prepareBody: () => undefined, readUsage: usageOfAnswer },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({
      onChunk: (chunk) => ({ text: '', usage: readHunyuanUsage(chunk.Usage), isUsageOnly: false, isModified: false }),
    }),
  },
  embeddings: { readUsage: usageOfAnswer },
  errors: { parse: parseHunyuanError },
  validateChannel: (key: string, other: string, _baseURL: string) => validateHunyuanChannel(key, other),
} satisfies ProviderAdapter & Record<string, unknown>;
