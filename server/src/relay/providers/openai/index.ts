import type { ExtraField, ProviderAdapter, ProviderMeta, RelayEndpoint, UpstreamTarget } from '../types.js';
import { createOpenAiApi } from './api.js';
import { fetchDashboardBalance } from './balance.js';
import { openAiStopSequenceLimit, prepareOpenAiChatBody, readOpenAiUsage, readOpenAiUsageFromBytes } from './chat.js';
import { createOpenAiChunkTransform } from './chat-stream.js';
import { readEmbeddingUsage } from './embeddings.js';
import { parseOpenAiError } from './errors.js';
import { responsesPassThrough } from './responses-passthrough.js';

const allEndpoints: RelayEndpoint[] = [
  'chat',
  'completions',
  'embeddings',
  'moderations',
  'images',
  'image-edits',
  'image-variations',
  'speech',
  'transcriptions',
  'translations',
  'rerank',
];

/** One OpenAI-wire provider, described as data; every field but the first four is optional. */
export interface OpenAiCompatibleConfig {
  slug: string;
  type: number;
  displayName: string;
  defaultBaseURL: string;
  keyHint?: string;
  defaultModels?: string[];
  extraFields?: ExtraField[];
  versionPath?: string;
  isFullUrl?: boolean;
  extraHeaders?: Record<string, string>;
  /** Auth headers from the key when it is not a plain Bearer token (see openai/api.ts). */
  authHeaders?: (key: string) => Record<string, string>;
  /** Provider body rules applied to each OpenAI chat body (in place), after the reasoning rules if any. */
  prepareChatBody?: (body: Record<string, unknown>) => void;
  endpoints?: RelayEndpoint[];
  /** Whether stream_options.include_usage may be sent. */
  supportsStreamUsage?: boolean;
  isUsageInChoice?: boolean;
  isCompletionFromTotal?: boolean;
  /** Apply OpenAI's o-series/gpt-5 body rules (and their refusal of `stop`). */
  hasReasoningRules?: boolean;
  /** How many stop sequences the provider takes for a model, when not OpenAI's 4 (jobs/stop-sequences.ts). */
  stopSequenceLimit?: (model: string) => number;
  fetchBalance?: (target: UpstreamTarget) => Promise<number>;
}

function prepareBodyOf(config: OpenAiCompatibleConfig): (body: Record<string, unknown>) => void {
  const { hasReasoningRules, prepareChatBody } = config;
  if (!prepareChatBody) return hasReasoningRules ? prepareOpenAiChatBody : () => undefined;
  return (body) => {
    if (hasReasoningRules) prepareOpenAiChatBody(body);
    prepareChatBody(body);
  };
}

/** Builds an adapter for any OpenAI-compatible provider from its config file. */
export function createOpenAiCompatible(config: OpenAiCompatibleConfig): ProviderAdapter {
  const meta: ProviderMeta = {
    type: config.type,
    displayName: config.displayName,
    keyHint: config.keyHint ?? '请输入 API Key（Bearer）',
    defaultBaseURL: config.defaultBaseURL,
    extraFields: config.extraFields ?? [],
    defaultModels: config.defaultModels ?? [],
  };
  const usageOptions = { isCompletionFromTotal: config.isCompletionFromTotal };
  const streamConfig = { ...usageOptions, isUsageInChoice: config.isUsageInChoice };
  return {
    slug: config.slug,
    meta,
    endpoints: new Set(config.endpoints ?? allEndpoints),
    api: createOpenAiApi({
      versionPath: config.versionPath ?? '/v1',
      isFullUrl: config.isFullUrl,
      extraHeaders: config.extraHeaders,
      authHeaders: config.authHeaders,
    }),
    chat: {
      prepareBody: prepareBodyOf(config),
      readUsage: (response) => readOpenAiUsage(response.usage, usageOptions),
      readUsageFromBytes: (body) => readOpenAiUsageFromBytes(body, usageOptions),
      stopSequenceLimit: config.stopSequenceLimit ?? (config.hasReasoningRules ? openAiStopSequenceLimit : undefined),
    },
    chatStream: {
      supportsStreamUsage: config.supportsStreamUsage ?? false,
      createTransform: () => createOpenAiChunkTransform(streamConfig),
    },
    embeddings: { readUsage: readEmbeddingUsage },
    errors: { parse: parseOpenAiError },
    fetchBalance: config.fetchBalance,
  };
}

/** Type 1 OpenAI: also the native target of `/v1/responses` (passed through to `{base}/v1/responses`). */
export const openAiAdapter: ProviderAdapter = {
  ...createOpenAiCompatible({
    slug: 'openai',
    type: 1,
    displayName: 'OpenAI',
    defaultBaseURL: 'https://api.openai.com',
    keyHint: 'sk-...',
    extraFields: [{ name: 'openai_organization', label: 'Organization', placeholder: 'org-...' }],
    defaultModels: [
      'gpt-5',
      'gpt-5-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4o',
      'gpt-4o-mini',
      'o3',
      'o4-mini',
      'text-embedding-3-small',
      'text-embedding-3-large',
      'dall-e-3',
      'whisper-1',
      'tts-1',
    ],
    supportsStreamUsage: true,
    hasReasoningRules: true,
    fetchBalance: fetchDashboardBalance,
  }),
  native: responsesPassThrough,
};
