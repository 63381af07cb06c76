import { request } from 'undici';
import type { UpstreamTarget } from '../types.js';
import { buildAzureHeaders, buildAzureUrl } from './api.js';

/** `GET {base}/openai/models?api-version=` → OpenAI-shaped `data[].id`. */
export async function fetchAzureModels(target: UpstreamTarget): Promise<string[]> {
  const response = await request(buildAzureUrl('models', target, ''), {
    method: 'GET', headers: buildAzureHeaders(target), dispatcher: target.dispatcher, headersTimeout: 20_000, bodyTimeout: 20_000,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`上游返回状态码 ${response.statusCode}`);
  const parsed = JSON.parse(text) as { data?: Array<{ id?: unknown }> };
  return (parsed.data ?? []).map((model) => model.id).filter((id): id is string => typeof id === 'string');
}
