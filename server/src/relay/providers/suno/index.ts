import { parseOpenAiError } from '../openai/errors.js';
import type { ProviderAdapter, UpstreamTarget } from '../types.js';
import { fetchSunoTasks } from './platform.js';
import { sunoFetchRequest, sunoSubmitRequest } from './requests.js';

/** Suno through a Suno-API proxy (type 36): tasks only (POST /suno/submit/{music,lyrics}, polled). */
export const sunoAdapter = {
  slug: 'suno',
  meta: {
    type: 36,
    displayName: 'Suno API',
    keyHint: 'Suno API 代理的密钥（Bearer）',
    defaultBaseURL: '',
    extraFields: [
      {
        name: 'base_url',
        label: 'Suno API 代理地址（服务 /suno/… 的部分之前）',
        placeholder: 'https://suno-api.example.com',
        required: true,
      },
    ],
    defaultModels: ['suno_music', 'suno_lyrics'],
  },
  // No /v1 endpoint: the channel serves the task routes (relay/tasks) by its models.
  endpoints: new Set([] as const),
  api: {
    url: (_endpoint: string, target: UpstreamTarget) => sunoSubmitRequest(target, 'MUSIC', {}).url,
    headers: (target: UpstreamTarget) => sunoFetchRequest(target, []).headers,
  },
  chat: { prepareBody: () => undefined, readUsage: () => null },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({ onChunk: () => ({ text: '', usage: null, isUsageOnly: false, isModified: false }) }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseOpenAiError },
  validateChannel: (_key: string, _other: string, baseURL: string) => (baseURL.trim() ? null : '请填写 Suno API 代理地址'),
  // A fetch of no task costs nothing and proves the proxy and the key.
  checkHealth: async (target: UpstreamTarget) => {
    await fetchSunoTasks(sunoAdapter, target, []);
  },
} satisfies ProviderAdapter & Record<string, unknown>;
