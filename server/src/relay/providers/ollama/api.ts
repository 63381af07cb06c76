import type { RelayEndpoint, UpstreamTarget } from '../types.js';

const paths: Partial<Record<RelayEndpoint | 'models', string>> = {
  chat: '/api/chat',
  completions: '/api/generate',
  embeddings: '/api/embed',
  models: '/api/tags',
};

const trimSlash = (url: string) => url.replace(/\/+$/, '');

export function buildOllamaUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, _model: string): string {
  const path = paths[endpoint];
  if (!path) throw new Error(`Ollama does not serve the ${endpoint} endpoint`);
  // An operator may paste the OpenAI-compatible base ending in /v1.
  return trimSlash(target.baseURL).replace(/\/v1$/, '') + path;
}

/** Bearer only when the channel has a key (a proxy in front of Ollama); plain Ollama needs none. */
export function buildOllamaHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { ...target.headers };
  if (target.key.trim()) headers.authorization = `Bearer ${target.key.trim()}`;
  return headers;
}
