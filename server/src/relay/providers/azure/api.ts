import type { RelayEndpoint, UpstreamTarget } from '../types.js';

/** NA's default when neither the request nor the channel names an api-version. */
export const defaultAzureApiVersion = '2025-04-01-preview';

const deploymentPaths: Partial<Record<RelayEndpoint, string>> = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  images: '/images/generations',
  'image-edits': '/images/edits',
  'image-variations': '/images/variations',
  speech: '/audio/speech',
  transcriptions: '/audio/transcriptions',
  translations: '/audio/translations',
};

const trimSlash = (url: string) => url.replace(/\/+$/, '');
const cloudflareGateway = 'https://gateway.ai.cloudflare.com';

/** The deployment name is the (mapped) model name with dots removed: gpt-3.5-turbo → gpt-35-turbo. */
export const azureDeploymentOf = (model: string): string => model.replaceAll('.', '');

/** api-version: the client's `?api-version=`, then the channel's `other`, then the default. */
export function azureApiVersion(other: string, requested?: string): string {
  return requested?.trim() || other.trim() || defaultAzureApiVersion;
}

export function buildAzureUrl(
  endpoint: RelayEndpoint | 'models',
  target: UpstreamTarget,
  model: string,
  requestedVersion?: string,
): string {
  const base = trimSlash(target.baseURL);
  const version = encodeURIComponent(azureApiVersion(target.other, requestedVersion));
  if (endpoint === 'models') return `${base}/openai/models?api-version=${version}`;
  const path = deploymentPaths[endpoint];
  if (!path) throw new Error(`Azure OpenAI does not serve the ${endpoint} endpoint`);
  const deployment = encodeURIComponent(azureDeploymentOf(model));
  // Cloudflare AI Gateway: the gateway base replaces `/openai/deployments`.
  if (base.startsWith(cloudflareGateway)) return `${base}/${deployment}${path}?api-version=${version}`;
  return `${base}/openai/deployments/${deployment}${path}?api-version=${version}`;
}

/**
 * Responses API: `{base}/openai/v1/responses?api-version=preview` by default; on cognitiveservices
 * hosts `{base}/openai/responses?api-version={v}`.
 */
export function buildAzureResponsesUrl(target: UpstreamTarget, version = 'preview'): string {
  const base = trimSlash(target.baseURL);
  if (base.includes('cognitiveservices.azure.com')) {
    return `${base}/openai/responses?api-version=${encodeURIComponent(azureApiVersion(target.other))}`;
  }
  return `${base}/openai/v1/responses?api-version=${encodeURIComponent(version)}`;
}

/** Realtime (for later): `wss://{host}/openai/realtime?api-version={v}&deployment={d}`. */
export function buildAzureRealtimeUrl(target: UpstreamTarget, model: string, requestedVersion?: string): string {
  const base = trimSlash(target.baseURL).replace(/^http(s?):\/\//, (_match, secure: string) => (secure ? 'wss://' : 'ws://'));
  const version = encodeURIComponent(azureApiVersion(target.other, requestedVersion));
  return `${base}/openai/realtime?api-version=${version}&deployment=${encodeURIComponent(azureDeploymentOf(model))}`;
}

/** `api-key: <key>` instead of Bearer; caller headers are kept. */
export function buildAzureHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { ...target.headers };
  if (target.key) headers['api-key'] = target.key;
  return headers;
}
