import { parseOpenAiError } from '../openai/errors.js';
import type { ProviderAdapter, UpstreamTarget } from '../types.js';
import { klingBase, klingCredentials, klingHeaders } from './api.js';
import { checkKlingHealth } from './video.js';

/** Kling (type 50, new-api's ChannelTypeKling): videos only, through the Videos API (relay/tasks/video.ts). */
export const klingAdapter = {
  slug: 'kling',
  meta: {
    type: 50,
    displayName: 'Kling',
    keyHint: '按照如下格式输入：AccessKey|SecretKey（由它签发 JWT）',
    defaultBaseURL: 'https://api-singapore.klingai.com',
    extraFields: [],
    defaultModels: ['kling-v1', 'kling-v1-6', 'kling-v2-master', 'kling-v2-1', 'kling-v2-1-master', 'kling-v2-5-turbo'],
  },
  // No /v1 chat endpoint: the channel serves the video routes by its models.
  endpoints: new Set([] as const),
  api: {
    url: (_endpoint: string, target: UpstreamTarget) => `${klingBase(target.baseURL)}/v1/videos/text2video`,
    headers: klingHeaders,
  },
  chat: { prepareBody: () => undefined, readUsage: () => null },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({ onChunk: () => ({ text: '', usage: null, isUsageOnly: false, isModified: false }) }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseOpenAiError },
  validateChannel: (key: string) =>
    key
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .every((line) => klingCredentials(line))
      ? null
      : 'Kling 的密钥格式为 AccessKey|SecretKey',
  // Listing one task costs nothing and proves the base URL and the key.
  checkHealth: async (target: UpstreamTarget) => {
    await checkKlingHealth(klingAdapter, target);
  },
} satisfies ProviderAdapter & Record<string, unknown>;
