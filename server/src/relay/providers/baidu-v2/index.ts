import { createOpenAiCompatible } from '../openai/index.js';

const searchSuffix = '-search';

/** `token|appid` → Bearer token plus the `appid` header; a plain key is a Bearer token. */
export function qianfanAuthHeaders(key: string): Record<string, string> {
  const bar = key.lastIndexOf('|');
  if (bar === -1) return { authorization: `Bearer ${key.trim()}` };
  const headers: Record<string, string> = { authorization: `Bearer ${key.slice(0, bar).trim()}` };
  const appId = key.slice(bar + 1).trim();
  if (appId) headers.appid = appId;
  return headers;
}

/** A model name ending in `-search` turns Qianfan's web search on (citations and trace too) and is sent without the suffix. */
export function applyQianfanSearch(body: Record<string, unknown>): void {
  const model = body.model;
  if (typeof model !== 'string' || !model.endsWith(searchSuffix) || model.length === searchSuffix.length) return;
  body.model = model.slice(0, -searchSuffix.length);
  body.web_search = { enable: true, enable_citation: true, enable_trace: true };
}

/** Baidu Qianfan v2 (channel type 46): the OpenAI wire under `/v2`. */
export const baiduV2Adapter = createOpenAiCompatible({
  slug: 'baidu-v2',
  type: 46,
  displayName: '百度千帆 V2',
  defaultBaseURL: 'https://qianfan.baidubce.com',
  keyHint: '千帆 API Key（bce-v3/ALTAK-…），可选按如下格式附带应用 ID：APIKey|AppID',
  versionPath: '/v2',
  supportsStreamUsage: true,
  endpoints: ['chat', 'embeddings', 'images', 'rerank'],
  authHeaders: qianfanAuthHeaders,
  prepareChatBody: applyQianfanSearch,
  defaultModels: [
    'ernie-4.5-turbo-128k',
    'ernie-4.5-8k-preview',
    'ernie-4.0-turbo-8k',
    'ernie-3.5-8k',
    'ernie-speed-128k',
    'ernie-lite-8k',
    'deepseek-v3',
    'deepseek-r1',
    'embedding-v1',
    'bge-large-zh',
    'bce-reranker-base',
    'irag-1.0',
  ],
});
