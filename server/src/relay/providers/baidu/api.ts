import type { RelayEndpoint, UpstreamTarget } from '../types.js';

export const baiduDefaultBaseURL = 'https://aip.baidubce.com';

/** Chat model → wenxinworkshop endpoint suffix; other models use their lowercased name (custom deployments). */
const chatEndpoints: Record<string, string> = {
  'ERNIE-4.0-8K': 'completions_pro',
  'ERNIE-4.0-8K-Latest': 'ernie-4.0-8k-latest',
  'ERNIE-4.0-8K-Preview': 'ernie-4.0-8k-preview',
  'ERNIE-4.0-Turbo-8K': 'ernie-4.0-turbo-8k',
  'ERNIE-4.0-Turbo-128K': 'ernie-4.0-turbo-128k',
  'ERNIE-3.5-8K': 'completions',
  'ERNIE-3.5-8K-Preview': 'ernie-3.5-8k-preview',
  'ERNIE-3.5-128K': 'ernie-3.5-128k',
  'ERNIE-Speed-8K': 'ernie_speed',
  'ERNIE-Speed-128K': 'ernie-speed-128k',
  'ERNIE-Speed-Pro-128K': 'ernie-speed-pro-128k',
  'ERNIE-Lite-8K-0922': 'eb-instant',
  'ERNIE-Lite-8K': 'ernie-lite-8k',
  'ERNIE-Lite-Pro-128K': 'ernie-lite-pro-128k',
  'ERNIE-Tiny-8K': 'ernie-tiny-8k',
  'ERNIE-Character-8K': 'ernie-char-8k',
  'ERNIE-Functions-8K': 'ernie-func-8k',
  // Legacy names some clients still send.
  'ERNIE-Bot-4': 'completions_pro',
  'ERNIE-Bot': 'completions',
  'ERNIE-Bot-turbo': 'eb-instant',
};

const embeddingEndpoints: Record<string, string> = {
  'embedding-v1': 'embedding-v1',
  'bge-large-zh': 'bge_large_zh',
  'bge-large-en': 'bge_large_en',
  'tao-8k': 'tao_8k',
};

/** The model's endpoint suffix; names are matched without regard to case. */
function endpointOf(table: Record<string, string>, model: string): string {
  const lower = model.trim().toLowerCase();
  for (const [name, endpoint] of Object.entries(table)) if (name.toLowerCase() === lower) return endpoint;
  return lower;
}

export const baiduBase = (target: UpstreamTarget): string => (target.baseURL || baiduDefaultBaseURL).replace(/\/+$/, '');

/** `{base}/rpc/2.0/ai_custom/v1/wenxinworkshop/{chat|embeddings}/{endpoint}`, without the access token. */
export function baiduUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string): string {
  const kind = endpoint === 'embeddings' ? 'embeddings' : 'chat';
  const suffix = kind === 'embeddings' ? endpointOf(embeddingEndpoints, model) : endpointOf(chatEndpoints, model);
  return `${baiduBase(target)}/rpc/2.0/ai_custom/v1/wenxinworkshop/${kind}/${encodeURIComponent(suffix)}`;
}

/** The same URL with `?access_token=`. */
export const withAccessToken = (url: string, token: string): string => `${url}?access_token=${encodeURIComponent(token)}`;

/** `APIKey|SecretKey` → its two parts (null when the key does not have that shape). */
export function splitBaiduKey(key: string): { apiKey: string; secretKey: string } | null {
  const parts = key.trim().split('|');
  if (parts.length !== 2 || !parts[0]!.trim() || !parts[1]!.trim()) return null;
  return { apiKey: parts[0]!.trim(), secretKey: parts[1]!.trim() };
}
