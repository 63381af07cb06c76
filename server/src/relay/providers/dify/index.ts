import type { ChatConverter, ProviderAdapter } from '../types.js';
import { buildDifyHeaders, buildDifyRequest, buildDifyUrl, difyAppTypeOf } from './request.js';
import { createDifyStreamTransform, parseDifyResponse, readDifyUsage } from './response.js';

export { difyAppTypeOf, difyQueryOf, difyUser } from './request.js';

/** Dify errors: `{code, message, status}`. */
export function parseDifyError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const parsed = JSON.parse(bodyText) as { code?: unknown; message?: unknown };
    if (typeof parsed.message === 'string') return { message: parsed.message, code: typeof parsed.code === 'string' ? parsed.code : null };
  } catch {
    // not JSON
  }
  return { message: bodyText.trim().slice(0, 300) || `upstream status ${status}`, code: null };
}

export function validateDifyChannel(key: string, other: string): string | null {
  if (!key.trim().startsWith('app-')) return 'Dify 的应用密钥以 app- 开头';
  if (other.trim() && !['chat', 'chatflow', 'agent', 'workflow'].includes(other.trim().toLowerCase())) {
    return 'Dify 应用类型只能是 chat、chatflow、agent 或 workflow';
  }
  return null;
}

/** Dify chat-messages / workflows/run, SSE streams. Agent apps only stream (blocking fails upstream). */
export const difyChatConverter: ChatConverter = {
  framing: 'sse',
  buildRequest: buildDifyRequest,
  parseResponse: parseDifyResponse,
  createStreamTransform: createDifyStreamTransform,
  isStreamOnly: (call) => difyAppTypeOf(call.target.other) === 'agent',
};

/** Dify (type 37): one app per channel; the model name is free-form. */
export const difyAdapter = {
  slug: 'dify',
  chatConverter: difyChatConverter,
  meta: {
    type: 37,
    displayName: 'Dify',
    keyHint: '应用密钥 app-...（Bearer）；应用类型填在「其他」',
    defaultBaseURL: 'https://api.dify.ai',
    extraFields: [{ name: 'other', label: '应用类型（chat / agent / workflow）', placeholder: 'chat' }],
    defaultModels: ['dify'],
  },
  endpoints: new Set(['chat'] as const),
  api: { url: buildDifyUrl, headers: buildDifyHeaders },
  chat: { prepareBody: () => undefined, readUsage: readDifyUsage },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({
      onChunk: (chunk) => ({
        text: typeof chunk.answer === 'string' ? chunk.answer : '',
        usage: chunk.event === 'message_end' ? readDifyUsage(chunk) : null,
        isUsageOnly: false,
        isModified: false,
      }),
    }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseDifyError },
  validateChannel: (key: string, other: string, _baseURL: string) => validateDifyChannel(key, other),
} satisfies ProviderAdapter & Record<string, unknown>;
