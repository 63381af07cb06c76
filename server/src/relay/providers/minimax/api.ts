import { createOpenAiApi } from '../openai/api.js';
import type { RelayEndpoint, UpstreamTarget } from '../types.js';

const bearer = createOpenAiApi({ versionPath: '/v1' });
const trimBase = (url: string) => url.replace(/\/+$/, '').replace(/\/v1$/, '');

/**
 * `{base}/v1/text/chatcompletion_v2` for chat, `{base}/v1/embeddings` for embeddings (with
 * `?GroupId=` when the channel's `other` holds one, as older accounts need); Bearer auth.
 */
export const miniMaxApi = {
  url(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, _model: string): string {
    const base = trimBase(target.baseURL);
    if (endpoint === 'chat') return `${base}/v1/text/chatcompletion_v2`;
    if (endpoint === 'embeddings') {
      const group = target.other.trim();
      return `${base}/v1/embeddings${group ? `?GroupId=${encodeURIComponent(group)}` : ''}`;
    }
    if (endpoint === 'models') return `${base}/v1/models`;
    throw new Error(`MiniMax does not serve the ${endpoint} endpoint`);
  },
  headers: (target: UpstreamTarget): Record<string, string> => bearer.headers(target),
};
