import type { UpstreamTarget } from '../types.js';
import { getUpstreamJson, namesIn } from '../upstream-request.js';
import { buildAzureHeaders, buildAzureUrl } from './api.js';

/** `GET {base}/openai/models?api-version=` → OpenAI-shaped `data[].id`. */
export async function fetchAzureModels(target: UpstreamTarget): Promise<string[]> {
  const json = await getUpstreamJson(buildAzureUrl('models', target, ''), buildAzureHeaders(target), target);
  return namesIn(json.data, 'id');
}
