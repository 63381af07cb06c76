import { request } from 'undici';
import type { UpstreamTarget } from '../types.js';
import { geminiBase } from './api.js';
import { parseGoogleError } from './errors.js';

/** `GET {base}/v1beta/models?key=` following `nextPageToken`; names without the `models/` prefix. */
export async function fetchGeminiModels(target: UpstreamTarget): Promise<string[]> {
  const names: string[] = [];
  let pageToken = '';
  for (let page = 0; page < 20; page++) {
    const query = new URLSearchParams({ key: target.key, pageSize: '1000' });
    if (pageToken) query.set('pageToken', pageToken);
    const response = await request(`${geminiBase(target.baseURL)}/v1beta/models?${query.toString()}`, {
      method: 'GET', headers: { accept: 'application/json' }, dispatcher: target.dispatcher, headersTimeout: 20_000, bodyTimeout: 20_000,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(parseGoogleError(response.statusCode, text).message);
    const json = JSON.parse(text) as { models?: Array<{ name?: unknown }>; nextPageToken?: unknown };
    for (const model of json.models ?? []) {
      if (typeof model.name === 'string') names.push(model.name.replace(/^models\//, ''));
    }
    if (typeof json.nextPageToken !== 'string' || json.nextPageToken === '') break;
    pageToken = json.nextPageToken;
  }
  return names;
}
