import { createOpenAiCompatible } from '../openai/index.js';
import { parseOpenAiError } from '../openai/errors.js';
import type { ProviderAdapter, UpstreamTarget } from '../types.js';
import { getUpstreamJson, namesIn } from '../upstream-request.js';
import { buildCloudflareUrl } from './api.js';

export { buildCloudflareUrl } from './api.js';

/** Cloudflare's `{success:false, errors:[{code,message}]}`, else the OpenAI shape. */
export function parseCloudflareError(status: number, bodyText: string): { message: string; code: string | null } {
  try {
    const parsed = JSON.parse(bodyText) as { errors?: Array<{ code?: unknown; message?: unknown }> };
    const first = parsed.errors?.[0];
    if (first && typeof first.message === 'string')
      return { message: first.message, code: first.code === undefined ? null : String(first.code) };
  } catch {
    // fall through
  }
  return parseOpenAiError(status, bodyText);
}

/** `other` must hold the account id (32 hex characters on Cloudflare). */
export function validateCloudflareChannel(key: string, other: string): string | null {
  if (!key.trim()) return 'Cloudflare 需要填写 API Token';
  if (!other.trim()) return 'Cloudflare 需要在「其他」中填写 Account ID';
  if (!/^[0-9a-f]{32}$/i.test(other.trim())) return 'Cloudflare Account ID 应为 32 位十六进制字符串';
  return null;
}

/** `GET /client/v4/accounts/{acct}/ai/models/search` → `result[].name`. */
export async function fetchCloudflareModels(target: UpstreamTarget): Promise<string[]> {
  const json = await getUpstreamJson(
    buildCloudflareUrl('models', target, ''),
    { authorization: `Bearer ${target.key}` },
    target,
    parseCloudflareError,
  );
  return namesIn(json.result, 'name');
}

const base = createOpenAiCompatible({
  slug: 'cloudflare',
  type: 39,
  displayName: 'Cloudflare Workers AI',
  defaultBaseURL: 'https://api.cloudflare.com',
  keyHint: 'Cloudflare API Token（Bearer）；Account ID 填在「其他」',
  supportsStreamUsage: true,
  extraFields: [{ name: 'other', label: 'Account ID', placeholder: '32 位账户 ID', required: true }],
  defaultModels: ['@cf/meta/llama-3.1-8b-instruct', '@cf/meta/llama-3.3-70b-instruct-fp8-fast', '@cf/baai/bge-m3'],
  endpoints: ['chat', 'embeddings'],
});

/** Cloudflare Workers AI (type 39) through its OpenAI-compatible endpoints. */
export const cloudflareAdapter = {
  ...base,
  api: { url: buildCloudflareUrl, headers: base.api.headers },
  errors: { parse: parseCloudflareError },
  validateChannel: (key: string, other: string, _baseURL: string) => validateCloudflareChannel(key, other),
  fetchModels: fetchCloudflareModels,
} satisfies ProviderAdapter & Record<string, unknown>;
