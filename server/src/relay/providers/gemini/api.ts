import type { AdapterOptions, RelayEndpoint, UpstreamTarget } from '../types.js';
import { versionFor } from './settings.js';

export const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The base without a trailing version segment an operator may have pasted (`.../v1beta`). */
export const geminiBase = (baseURL: string) => trimSlash(baseURL).replace(/\/(v1|v1beta|v1alpha)$/, '');

/** `{base}/{version}/models/{model}:generateContent` or `:streamGenerateContent?alt=sse`. */
export function geminiChatUrl(baseURL: string, version: string, model: string, isStream: boolean): string {
  const action = isStream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return `${geminiBase(baseURL)}/${version}/models/${encodeURIComponent(model)}:${action}`;
}

export function geminiHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { ...target.headers, 'content-type': 'application/json' };
  if (target.key) headers['x-goog-api-key'] = target.key;
  return headers;
}

/** URL for an endpoint when no options are at hand (version v1beta). */
export function geminiUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string, options?: AdapterOptions): string {
  const version = options ? versionFor(options, model) : 'v1beta';
  const base = geminiBase(target.baseURL);
  if (endpoint === 'models') return `${base}/v1beta/models`;
  if (endpoint === 'embeddings') return `${base}/${version}/models/${encodeURIComponent(model)}:batchEmbedContents`;
  return geminiChatUrl(target.baseURL, version, model, false);
}
