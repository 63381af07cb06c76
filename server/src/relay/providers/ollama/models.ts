import type { UpstreamTarget } from '../types.js';
import { getUpstreamJson, namesIn } from '../upstream-request.js';
import { buildOllamaHeaders, buildOllamaUrl } from './api.js';

/** `GET {base}/api/tags` → `models[].name`. */
export async function fetchOllamaModels(target: UpstreamTarget): Promise<string[]> {
  const json = await getUpstreamJson(buildOllamaUrl('models', target, ''), buildOllamaHeaders(target), target);
  return namesIn(json.models, 'name');
}
