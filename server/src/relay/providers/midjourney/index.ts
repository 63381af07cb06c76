import type { ProviderAdapter, UpstreamTarget } from '../types.js';
import { fetchMjTasks } from './platform.js';
import { mjListRequest, mjSubmitRequest } from './requests.js';

/** Reads a proxy's error body: `{code, description}`, `{message}`, `{error}` or plain text. */
export function parseMjError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const parsed = JSON.parse(bodyText) as Record<string, unknown>;
    const message = [parsed.description, parsed.message, parsed.error].find((value) => typeof value === 'string' && value);
    if (typeof message === 'string')
      return { message: message.slice(0, 2000), code: parsed.code === undefined ? null : String(parsed.code) };
  } catch {
    // not JSON
  }
  return { message: bodyText.trim().slice(0, 300) || `upstream status ${status}`, code: null };
}

/** The per-call models of each action (new-api's names, so imported prices keep working). */
const openSourceModels = ['mj_imagine', 'mj_variation', 'mj_reroll', 'mj_upscale', 'mj_describe', 'mj_blend'];
const plusModels = [
  ...openSourceModels,
  'mj_modal',
  'mj_zoom',
  'mj_custom_zoom',
  'mj_shorten',
  'mj_high_variation',
  'mj_low_variation',
  'mj_pan',
  'mj_inpaint',
  'swap_face',
  'mj_upload',
  'mj_video',
  'mj_edits',
];

function midjourneyAdapter(type: 2 | 5, slug: string, displayName: string, defaultModels: string[]) {
  return {
    slug,
    meta: {
      type,
      displayName,
      keyHint: 'Midjourney-Proxy 的 mj-api-secret',
      defaultBaseURL: '',
      extraFields: [
        {
          name: 'base_url' as const,
          label: 'Midjourney-Proxy 地址（服务 /mj/… 的部分之前）',
          placeholder: 'https://mj-proxy.example.com',
          required: true,
        },
      ],
      defaultModels,
    },
    // No /v1 endpoint: the channel serves the /mj routes (relay/tasks) by its per-action models.
    endpoints: new Set([] as const),
    api: {
      url: (_endpoint: string, target: UpstreamTarget) => mjSubmitRequest(target, 'submit/imagine', {}).url,
      headers: (target: UpstreamTarget) => mjListRequest(target, []).headers,
    },
    chat: { prepareBody: () => undefined, readUsage: () => null },
    chatStream: {
      supportsStreamUsage: false,
      createTransform: () => ({ onChunk: () => ({ text: '', usage: null, isUsageOnly: false, isModified: false }) }),
    },
    embeddings: { readUsage: () => null },
    errors: { parse: parseMjError },
    validateChannel: (_key: string, _other: string, baseURL: string) => (baseURL.trim() ? null : '请填写 Midjourney-Proxy 地址'),
    // Listing no task costs nothing and proves the proxy and the key.
    checkHealth: async (target: UpstreamTarget) => {
      await fetchMjTasks(adapters[type], target, []);
    },
  } satisfies ProviderAdapter & Record<string, unknown>;
}

/** Midjourney-Proxy (novicezk, type 2) and Midjourney-Proxy-Plus (type 5): tasks only, polled. */
export const midjourneyProxyAdapter = midjourneyAdapter(2, 'midjourney', 'Midjourney Proxy', openSourceModels);
export const midjourneyPlusAdapter = midjourneyAdapter(5, 'midjourney-plus', 'Midjourney Proxy Plus', plusModels);
const adapters: Record<2 | 5, ProviderAdapter> = { 2: midjourneyProxyAdapter, 5: midjourneyPlusAdapter };
