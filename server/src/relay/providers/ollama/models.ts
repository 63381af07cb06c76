import { request } from 'undici';
import type { UpstreamTarget } from '../types.js';
import { buildOllamaHeaders, buildOllamaUrl } from './api.js';

/** `GET {base}/api/tags` → `models[].name`. */
export async function fetchOllamaModels(target: UpstreamTarget): Promise<string[]> {
  const response = await request(buildOllamaUrl('models', target, ''), {
    method: 'GET', headers: buildOllamaHeaders(target), dispatcher: target.dispatcher, headersTimeout: 20_000, bodyTimeout: 20_000,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`上游返回状态码 ${response.statusCode}`);
  const parsed = JSON.parse(text) as { models?: Array<{ name?: unknown; model?: unknown }> };
  return (parsed.models ?? []).map((model) => model.name ?? model.model).filter((name): name is string => typeof name === 'string');
}
