import type { RelayEndpoint, UpstreamTarget } from '../types.js';

const paths: Partial<Record<RelayEndpoint | 'models', string>> = {
  chat: '/v1/chat',
  rerank: '/v1/rerank',
  models: '/v1/models',
};

const trimSlash = (url: string) => url.replace(/\/+$/, '').replace(/\/v1$/, '');

export function buildCohereUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, _model: string): string {
  const path = paths[endpoint];
  if (!path) throw new Error(`Cohere does not serve the ${endpoint} endpoint`);
  return trimSlash(target.baseURL) + path;
}

export function buildCohereHeaders(target: UpstreamTarget): Record<string, string> {
  return { ...target.headers, authorization: `Bearer ${target.key}`, accept: 'application/json' };
}
