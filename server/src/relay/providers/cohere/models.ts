import type { UpstreamTarget } from '../types.js';
import { getUpstreamJson, namesIn } from '../upstream-request.js';
import { buildCohereHeaders, buildCohereUrl } from './api.js';

/** `GET {base}/v1/models` → `models[].name` (Cohere's shape, not OpenAI `data`). */
export async function fetchCohereModels(target: UpstreamTarget): Promise<string[]> {
  const json = await getUpstreamJson(buildCohereUrl('models', target, ''), buildCohereHeaders(target), target);
  return namesIn(json.models, 'name');
}
