import type { Dispatcher } from 'undici';
import { relayErrors } from '../../errors.js';
import type { UpstreamTarget } from '../types.js';
import { parseVertexKey } from './credentials.js';
import { vertexTokenCache } from './token.js';

export const defaultRegion = 'us-central1';

/** The key of the `other` JSON that is no model: the Cloud Storage prefix Veo writes its videos to. */
export const storageUriKey = 'storageUri';

export const isClaudeModel = (model: string) => model.startsWith('claude');

/** A Vertex region as Google names them (`us-central1`, `europe-west4`, `global`): it becomes part of a host name. */
const regionPattern = /^[a-z][a-z0-9]{0,30}(?:-[a-z0-9]{1,30}){0,4}$/;
export const isVertexRegion = (value: unknown): boolean => typeof value === 'string' && regionPattern.test(value);

/**
 * The channel `other`: a region (`europe-west1`) or JSON `{"default":"us-central1","<model>":"..."}`.
 * A value that is not a region name (a stored value the form never checked) is the default region:
 * the region is spliced into the host the OAuth token is sent to, so it never names another host.
 */
export function regionFor(other: string, model: string): string {
  const trimmed = other.trim();
  if (trimmed.startsWith('{')) {
    try {
      const map = JSON.parse(trimmed) as Record<string, unknown>;
      const region = Object.hasOwn(map, model) && model !== storageUriKey ? map[model] : map.default;
      return typeof region === 'string' && isVertexRegion(region) ? region : defaultRegion;
    } catch {
      return defaultRegion;
    }
  }
  return isVertexRegion(trimmed) ? trimmed : defaultRegion;
}

/** `gs://{bucket}[/{prefix}]`, with a bucket name as Cloud Storage allows them. */
const storageUriPattern = /^gs:\/\/([a-z0-9][a-z0-9._-]{1,220}[a-z0-9])(?:\/[^\s?#]*)?$/;

/** The channel's Veo output prefix (`{"storageUri":"gs://bucket/veo/"}` in `other`) and its bucket, or null when none is set. */
export function vertexStorageUri(other: string): { uri: string; bucket: string } | null {
  const trimmed = other.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value = (JSON.parse(trimmed) as Record<string, unknown>)[storageUriKey];
    const match = typeof value === 'string' ? storageUriPattern.exec(value) : null;
    return match ? { uri: value as string, bucket: match[1]! } : null;
  } catch {
    return null;
  }
}

/** Channel form check of `other`: empty, a region, or a JSON object of regions (and an optional `storageUri`). */
export function validateVertexRegions(other: string): string | null {
  const trimmed = other.trim();
  if (!trimmed) return null;
  if (!trimmed.startsWith('{')) return isVertexRegion(trimmed) ? null : `Vertex AI 区域无效：${trimmed.slice(0, 64)}（例如 us-central1）`;
  let map: unknown;
  try {
    map = JSON.parse(trimmed);
  } catch {
    return 'Vertex AI 区域映射必须是 JSON 对象，如 {"default": "us-central1"}';
  }
  if (!map || typeof map !== 'object' || Array.isArray(map)) return 'Vertex AI 区域映射必须是 JSON 对象，如 {"default": "us-central1"}';
  for (const [model, region] of Object.entries(map)) {
    if (model === storageUriKey) {
      if (typeof region !== 'string' || !storageUriPattern.test(region))
        return `Vertex AI storageUri 无效：${String(JSON.stringify(region)).slice(0, 100)}（例如 gs://my-bucket/veo/）`;
      continue;
    }
    if (!isVertexRegion(region)) return `Vertex AI 区域无效：${model} → ${String(JSON.stringify(region)).slice(0, 64)}（例如 us-central1）`;
  }
  return null;
}

/**
 * `https://{region}-aiplatform.googleapis.com` (`https://aiplatform.googleapis.com` for `global`).
 * A channel base URL, when set, replaces the host (a proxy in front of Vertex, or a test mock).
 */
export function vertexHost(baseURL: string, region: string): string {
  if (baseURL.trim()) return baseURL.trim().replace(/\/+$/, '');
  return region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
}

function actionOf(model: string, isStream: boolean): string {
  if (isClaudeModel(model)) return isStream ? 'streamRawPredict' : 'rawPredict';
  return isStream ? 'streamGenerateContent?alt=sse' : 'generateContent';
}

/** URL and auth headers for one model call, with a cached OAuth token or the API key. */
export async function vertexEndpoint(
  target: UpstreamTarget,
  model: string,
  isStream: boolean,
  dispatcher: Dispatcher = target.dispatcher,
): Promise<{ url: string; headers: Record<string, string> }> {
  const key = parseVertexKey(target.key);
  // Express mode (API key) is served from the global endpoint unless a region is configured.
  const region = key.kind === 'api-key' && !target.other.trim() ? 'global' : regionFor(target.other, model);
  const host = vertexHost(target.baseURL, region);
  const publisher = isClaudeModel(model) ? 'anthropic' : 'google';
  // Versioned ids keep their literal `@` (claude-sonnet-4@20250514), as in Vertex URLs.
  const modelPath = `publishers/${publisher}/models/${encodeURIComponent(model).replace(/%40/g, '@')}:${actionOf(model, isStream)}`;
  const headers: Record<string, string> = { ...target.headers, 'content-type': 'application/json' };
  // The client's anthropic-* headers are for Claude models only.
  if (publisher === 'google')
    for (const name of Object.keys(headers)) if (name.toLowerCase().startsWith('anthropic-')) delete headers[name];
  if (key.kind === 'api-key') {
    if (isClaudeModel(model)) throw relayErrors.badRequest('Vertex AI API Key 仅支持 Gemini 模型；Claude 模型请使用服务账号 JSON');
    headers['x-goog-api-key'] = key.apiKey;
    return { url: `${host}/v1/${modelPath}`, headers };
  }
  const token = await vertexTokenCache.getAccessToken(key.account, dispatcher);
  headers.authorization = `Bearer ${token}`;
  return { url: `${host}/v1/projects/${key.account.project_id}/locations/${region}/${modelPath}`, headers };
}
