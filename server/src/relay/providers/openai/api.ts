import type { RelayEndpoint, UpstreamTarget } from '../types.js';

const paths: Record<RelayEndpoint | 'models', string> = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  moderations: '/moderations',
  images: '/images/generations',
  'image-edits': '/images/edits',
  'image-variations': '/images/variations',
  speech: '/audio/speech',
  transcriptions: '/audio/transcriptions',
  translations: '/audio/translations',
  rerank: '/rerank',
  models: '/models',
};

export interface OpenAiApiConfig {
  /** Path between the base URL and the endpoint; '/v1' for most, '/api/paas/v4' for Zhipu v4. */
  versionPath: string;
  /** Custom (type 8): the base URL is the full endpoint URL, with `{model}` substituted. */
  isFullUrl?: boolean;
  extraHeaders?: Record<string, string>;
  /** Auth headers from the channel key when it is not a plain Bearer token (Qianfan v2: `token|appid`). */
  authHeaders?: (key: string) => Record<string, string>;
}

const trimSlash = (url: string) => (url.endsWith('/') ? url.slice(0, -1) : url);

export function createOpenAiApi(config: OpenAiApiConfig) {
  return {
    url(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string): string {
      const base = trimSlash(target.baseURL);
      if (config.isFullUrl && endpoint !== 'models') return base.replaceAll('{model}', encodeURIComponent(model));
      // An operator may paste the base with the version path already on it.
      const prefix = base.endsWith(config.versionPath) ? base : base + config.versionPath;
      return prefix + paths[endpoint];
    },
    headers(target: UpstreamTarget): Record<string, string> {
      const headers: Record<string, string> = { ...config.extraHeaders, ...target.headers };
      if (!target.key) return headers;
      if (config.authHeaders) Object.assign(headers, config.authHeaders(target.key));
      else headers.authorization = `Bearer ${target.key}`;
      return headers;
    },
  };
}
