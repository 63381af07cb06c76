import { geminiBase, geminiHeaders } from '../gemini/api.js';
import { parseGoogleError } from '../gemini/errors.js';
import type { ChatCall, ChatConverter, ProviderAdapter, RelayEndpoint, UpstreamRequest, UpstreamTarget } from '../types.js';
import { parsePalmResponse, toPalmRequest } from './chat.js';
import { createPalmStreamTransform } from './chat-stream.js';

/** `{base}/v1beta2/models/{model}:generateMessage` (also for streaming clients: PaLM cannot stream). */
export function palmUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string): string {
  const base = geminiBase(target.baseURL).replace(/\/v1beta2$/, '');
  return endpoint === 'models' ? `${base}/v1beta2/models` : `${base}/v1beta2/models/${encodeURIComponent(model)}:generateMessage`;
}

export function buildPalmRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest {
  return { url: palmUrl('chat', call.target, call.upstreamModel), headers: geminiHeaders(call.target), body: toPalmRequest(body) };
}

export const palmChatConverter: ChatConverter = {
  framing: 'sse',
  isStreamingUnsupported: true,
  buildRequest: buildPalmRequest,
  parseResponse: parsePalmResponse,
  createStreamTransform: createPalmStreamTransform,
};

/** Google PaLM 2 (channel type 11; legacy, retired by Google). */
export const palmAdapter: ProviderAdapter = {
  slug: 'palm',
  // Not OpenAI's wire, so the pipeline converts; there is no native pass-through for PaLM.
  wire: 'gemini',
  chatConverter: palmChatConverter,
  meta: {
    type: 11,
    displayName: 'Google PaLM2',
    keyHint: 'Google API Key（x-goog-api-key）',
    defaultBaseURL: 'https://generativelanguage.googleapis.com',
    extraFields: [],
    defaultModels: ['chat-bison-001'],
  },
  endpoints: new Set(['chat']),
  api: { url: palmUrl, headers: geminiHeaders },
  chat: { prepareBody: () => undefined, readUsage: () => null },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({ onChunk: () => ({ text: '', usage: null, isUsageOnly: false, isModified: false }) }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseGoogleError },
};
