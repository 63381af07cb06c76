import type { ChatConverter, ProviderAdapter } from '../types.js';
import { parseSparkError } from './errors.js';
import { validateSparkKey } from './key.js';
import { buildSparkRequest } from './request.js';
import { createSparkStreamTransform, parseSparkResponse, readSparkUsage } from './response.js';
import { sparkTransport } from './transport.js';

/** Spark always answers in frames over the socket: non-stream clients get the frames joined by the relay. */
export const sparkChatConverter: ChatConverter = {
  framing: 'ndjson',
  buildRequest: (body, call) => buildSparkRequest(body, call),
  parseResponse: parseSparkResponse,
  createStreamTransform: createSparkStreamTransform,
  isStreamOnly: () => true,
};

/** iFlytek Spark (type 18): a signed WebSocket per call; the version picks the path and the domain. */
export const sparkAdapter = {
  slug: 'spark',
  chatConverter: sparkChatConverter,
  transport: sparkTransport,
  meta: {
    type: 18,
    displayName: '讯飞星火认知',
    keyHint: '按照如下格式输入：APPID|APISecret|APIKey',
    defaultBaseURL: 'wss://spark-api.xf-yun.com',
    extraFields: [{ name: 'other', label: '版本号（v1.1、v2.1、v3.1、v3.5、v4.0、pro-128k、max-32k）', placeholder: 'v2.1' }],
    defaultModels: ['SparkDesk', 'SparkDesk-v1.1', 'SparkDesk-v2.1', 'SparkDesk-v3.1', 'SparkDesk-v3.5', 'SparkDesk-v4.0'],
  },
  endpoints: new Set(['chat'] as const),
  api: {
    // Every call is built by the converter (the URL is signed per call); these are never used for chat.
    url: (_endpoint, target) => target.baseURL,
    headers: () => ({}),
  },
  chat: { prepareBody: () => undefined, readUsage: (response) => readSparkUsage(response) },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({ onChunk: () => ({ text: '', usage: null, isUsageOnly: false, isModified: false }) }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseSparkError },
  validateChannel: (key: string, _other: string, _baseURL: string) => validateSparkKey(key),
} satisfies ProviderAdapter & Record<string, unknown>;
