import type { ChatConverter, ProviderAdapter } from '../types.js';
import { parseZhipuError } from './errors.js';
import { splitZhipuKey } from './jwt.js';
import { buildZhipuRequest, zhipuApiUrl } from './request.js';
import { createZhipuStreamTransform, parseZhipuResponse, readZhipuUsage } from './response.js';

export function validateZhipuChannel(key: string): string | null {
  return splitZhipuKey(key) ? null : '智谱 API Key 格式应为 id.secret（用英文句点分隔）';
}

/** Zhipu v3 invoke / sse-invoke (raw-text SSE with a `meta:` usage line). */
export const zhipuChatConverter: ChatConverter = {
  framing: 'sse-raw',
  buildRequest: buildZhipuRequest,
  parseResponse: parseZhipuResponse,
  createStreamTransform: createZhipuStreamTransform,
};

/** Zhipu (type 16), the old v3 model-api: a JWT signed from `id.secret`, no Bearer. */
export const zhipuAdapter = {
  slug: 'zhipu',
  chatConverter: zhipuChatConverter,
  meta: {
    type: 16,
    displayName: '智谱 ChatGLM（v3）',
    keyHint: 'API Key，格式为 id.secret（由它签发 JWT）',
    defaultBaseURL: 'https://open.bigmodel.cn',
    extraFields: [],
    defaultModels: ['chatglm_turbo', 'chatglm_pro', 'chatglm_std', 'chatglm_lite'],
  },
  endpoints: new Set(['chat'] as const),
  // Only the channel test and fetch-models read these; requests are built by the converter (signed).
  api: { url: zhipuApiUrl, headers: (target) => ({ ...target.headers }) },
  chat: { prepareBody: () => undefined, readUsage: (json) => readZhipuUsage((json.data as { usage?: unknown } | undefined)?.usage) },
  chatStream: {
    supportsStreamUsage: false,
    createTransform: () => ({ onChunk: () => ({ text: '', usage: null, isUsageOnly: false, isModified: false }) }),
  },
  embeddings: { readUsage: () => null },
  errors: { parse: parseZhipuError },
  validateChannel: (key: string) => validateZhipuChannel(key),
} satisfies ProviderAdapter & Record<string, unknown>;
