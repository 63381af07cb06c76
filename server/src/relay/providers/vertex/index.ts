import { readClaudeUsage } from '../anthropic/usage.js';
import { parseClaudeError } from '../anthropic/errors.js';
import { parseGoogleError } from '../gemini/errors.js';
import { createGeminiUsageReader } from '../gemini/native.js';
import { readGeminiUsage } from '../gemini/usage.js';
import type { ChatCall, NativeWire, ProviderAdapter, UpstreamRequest } from '../types.js';
import { isClaudeModel, regionFor, validateVertexRegions, vertexEndpoint, vertexHost } from './api.js';
import { vertexChatConverter } from './converter.js';
import { parseVertexKey } from './credentials.js';

/** Channel form check: a complete service-account JSON, or a non-empty API key. */
export function validateVertexKey(key: string): string | null {
  if (!key.trim()) return 'Vertex AI 需要服务账号 JSON 或 API Key';
  try {
    parseVertexKey(key);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Gemini-format clients on Gemini models are passed through (body unchanged, model in the URL). */
async function buildNativeVertexRequest(body: Record<string, unknown>, call: ChatCall): Promise<UpstreamRequest> {
  const { url, headers } = await vertexEndpoint(call.target, call.upstreamModel, call.isStream);
  return { url, headers, body };
}

const vertexNativeWire: NativeWire = {
  format: 'gemini',
  framing: 'sse',
  accepts: (model) => !isClaudeModel(model),
  buildRequest: buildNativeVertexRequest,
  readUsage: (json) => readGeminiUsage(json.usageMetadata),
  createUsageReader: createGeminiUsageReader,
};

/** Both error envelopes occur: Google's `{error:{code,message,status}}` and Anthropic's `{type:'error',error:{type,message}}`. */
function parseVertexError(status: number, bodyText: string): { message: string; code: string | null } {
  return bodyText.includes('"type":"error"') ? parseClaudeError(status, bodyText) : parseGoogleError(status, bodyText);
}

/** Google Vertex AI (channel type 41): Gemini and Claude models with service-account OAuth. */
export const vertexAdapter: ProviderAdapter = {
  slug: 'vertex',
  wire: 'gemini',
  chatConverter: vertexChatConverter,
  native: vertexNativeWire,
  meta: {
    type: 41,
    displayName: 'Google Vertex AI',
    keyHint: '服务账号 JSON 密钥（整个 JSON 文件内容），或 Vertex AI API Key（仅 Gemini）',
    defaultBaseURL: '',
    extraFields: [
      {
        name: 'other',
        label: '区域 Region',
        placeholder: 'us-central1，或 {"default":"us-central1","claude-sonnet-4@20250514":"us-east5","storageUri":"gs://my-bucket/veo/"}',
      },
    ],
    defaultModels: [
      'gemini-2.5-pro',
      'gemini-2.5-flash',
      'gemini-2.5-flash-lite',
      'gemini-2.0-flash',
      'claude-sonnet-4-5@20250929',
      'claude-opus-4-1@20250805',
      'claude-sonnet-4@20250514',
      'claude-3-7-sonnet@20250219',
    ],
  },
  endpoints: new Set(['chat']),
  validateChannel: (key, other) => validateVertexKey(key) ?? validateVertexRegions(other),
  api: {
    // The real URL needs the project and a token, so the pipeline uses chatConverter.buildRequest.
    url: (_endpoint, target, model) => `${vertexHost(target.baseURL, regionFor(target.other, model))}/v1`,
    headers: (target) => ({ ...target.headers, 'content-type': 'application/json' }),
  },
  chat: {
    prepareBody: () => undefined,
    readUsage: (response) => (response.usageMetadata ? readGeminiUsage(response.usageMetadata) : readClaudeUsage(response.usage)),
  },
  chatStream: {
    supportsStreamUsage: true,
    createTransform: () => ({
      onChunk: (chunk) => ({
        text: '',
        usage: chunk.usageMetadata ? readGeminiUsage(chunk.usageMetadata) : readClaudeUsage(chunk.usage),
        isUsageOnly: false,
        isModified: false,
      }),
    }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseVertexError },
};
