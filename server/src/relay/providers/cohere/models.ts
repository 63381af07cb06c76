import { request } from 'undici';
import type { UpstreamTarget } from '../types.js';
import { buildCohereHeaders, buildCohereUrl } from './api.js';

/** `GET {base}/v1/models` → `models[].name` (Cohere's shape, not OpenAI `data`). */
export async function fetchCohereModels(target: UpstreamTarget): Promise<string[]> {
  const response = await request(buildCohereUrl('models', target, ''), {
    method: 'GET', headers: buildCohereHeaders(target), dispatcher: target.dispatcher, headersTimeout: 20_000, bodyTimeout: 20_000,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`上游返回状态码 ${response.statusCode}`);
  const parsed = JSON.parse(text) as { models?: Array<{ name?: unknown }> };
  return (parsed.models ?? []).map((model) => model.name).filter((name): name is string => typeof name === 'string');
}
