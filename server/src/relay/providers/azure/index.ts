import { openAiStopSequenceLimit, prepareOpenAiChatBody, readOpenAiUsage } from '../openai/chat.js';
import { createOpenAiChunkTransform } from '../openai/chat-stream.js';
import { readEmbeddingUsage } from '../openai/embeddings.js';
import { parseOpenAiError } from '../openai/errors.js';
import type { ProviderAdapter, RelayEndpoint, RequestOptions, UpstreamTarget } from '../types.js';
import { buildAzureHeaders, buildAzureUrl } from './api.js';
import { fetchAzureModels } from './models.js';

export {
  buildAzureRealtimeUrl,
  buildAzureResponsesUrl,
  buildAzureUrl,
  azureApiVersion,
  azureDeploymentOf,
  defaultAzureApiVersion,
} from './api.js';

/** Channel form check: a key and the resource endpoint are required. Returns a message or null. */
export function validateAzureChannel(key: string, _other: string, baseURL: string): string | null {
  if (!key.trim()) return 'Azure OpenAI 需要填写 API Key';
  if (!baseURL.trim()) return 'Azure OpenAI 需要填写资源地址，例如 https://{resource}.openai.azure.com';
  return null;
}

/**
 * Azure OpenAI (type 3): the OpenAI body, usage, stream and errors, with Azure's deployment URL
 * scheme and the `api-key` header.
 */
export const azureAdapter = {
  slug: 'azure',
  meta: {
    type: 3,
    displayName: 'Azure OpenAI',
    keyHint: 'Azure OpenAI 资源的 API Key（以 api-key 头发送）',
    defaultBaseURL: '',
    extraFields: [
      { name: 'base_url', label: '资源地址', placeholder: 'https://{resource}.openai.azure.com', required: true },
      { name: 'other', label: 'API 版本（api-version）', placeholder: '2025-04-01-preview' },
    ],
    defaultModels: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-35-turbo', 'text-embedding-3-small', 'dall-e-3', 'whisper'],
  },
  endpoints: new Set([
    'chat',
    'completions',
    'embeddings',
    'images',
    'image-edits',
    'image-variations',
    'speech',
    'transcriptions',
    'translations',
  ] as const),
  api: {
    url: (endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string, request?: RequestOptions) =>
      buildAzureUrl(endpoint, target, model, request?.apiVersion),
    headers: buildAzureHeaders,
  },
  chat: {
    prepareBody: prepareOpenAiChatBody,
    readUsage: (response) => readOpenAiUsage(response.usage),
    stopSequenceLimit: openAiStopSequenceLimit,
  },
  chatStream: {
    supportsStreamUsage: true,
    // Content-filter chunks with `choices: []` and no usage read as empty text; they pass unchanged.
    createTransform: () => createOpenAiChunkTransform({}),
  },
  embeddings: { readUsage: readEmbeddingUsage },
  errors: { parse: parseOpenAiError },
  validateChannel: validateAzureChannel,
  fetchModels: (target: UpstreamTarget) => fetchAzureModels(target),
} satisfies ProviderAdapter & Record<string, unknown>;
