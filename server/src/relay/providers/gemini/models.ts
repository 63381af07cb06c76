import type { UpstreamTarget } from '../types.js';
import { getUpstreamJson, namesIn } from '../upstream-request.js';
import { geminiBase } from './api.js';
import { parseGoogleError } from './errors.js';

/** `GET {base}/v1beta/models?key=` following `nextPageToken`; names without the `models/` prefix. */
export async function fetchGeminiModels(target: UpstreamTarget): Promise<string[]> {
  const names: string[] = [];
  let pageToken = '';
  for (let page = 0; page < 20; page++) {
    const query = new URLSearchParams({ key: target.key, pageSize: '1000' });
    if (pageToken) query.set('pageToken', pageToken);
    const json = await getUpstreamJson(`${geminiBase(target.baseURL)}/v1beta/models?${query.toString()}`, {}, target, parseGoogleError);
    for (const name of namesIn(json.models, 'name')) names.push(name.replace(/^models\//, ''));
    if (typeof json.nextPageToken !== 'string' || json.nextPageToken === '') break;
    pageToken = json.nextPageToken;
  }
  return names;
}
