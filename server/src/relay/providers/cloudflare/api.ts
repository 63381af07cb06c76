import type { RelayEndpoint, UpstreamTarget } from '../types.js';

const paths: Partial<Record<RelayEndpoint, string>> = { chat: '/chat/completions', embeddings: '/embeddings' };
const trimSlash = (url: string) => url.replace(/\/+$/, '');
const aiGateway = 'https://gateway.ai.cloudflare.com';

/**
 * `{base}/client/v4/accounts/{account = other}/ai/v1/chat/completions` (and `/embeddings`);
 * the model list is `/client/v4/accounts/{account}/ai/models/search`. A Cloudflare AI Gateway
 * base (`https://gateway.ai.cloudflare.com/v1/{acct}/{gateway}/workers-ai`) takes `/v1/...` directly.
 */
export function buildCloudflareUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, _model: string): string {
  const base = trimSlash(target.baseURL);
  const account = encodeURIComponent(target.other.trim());
  if (endpoint === 'models') return `${base}/client/v4/accounts/${account}/ai/models/search`;
  const path = paths[endpoint];
  if (!path) throw new Error(`Cloudflare Workers AI does not serve the ${endpoint} endpoint`);
  if (base.startsWith(aiGateway)) return `${base}/v1${path}`;
  return `${base}/client/v4/accounts/${account}/ai/v1${path}`;
}
