import type { AdapterOptions, RelayEndpoint, UpstreamTarget } from '../types.js';
import { modelHeaderProblem } from '../../../options/model-headers.js';

export const anthropicVersion = '2023-06-01';

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** {base}/v1/messages (chat) and {base}/v1/models; a base pasted with `/v1` already on it works too. */
export function anthropicUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget): string {
  const base = trimSlash(target.baseURL).replace(/\/v1$/, '');
  return `${base}/v1/${endpoint === 'models' ? 'models' : 'messages'}`;
}

const headerOf = (headers: Record<string, string>, name: string): string | undefined => {
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name);
  return found === undefined ? undefined : headers[found];
};

/**
 * x-api-key + anthropic-version (the client's value when given); anthropic-beta and any other
 * header the caller put in target.headers are passed through.
 */
export function anthropicHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers)) headers[name.toLowerCase()] = value;
  headers['x-api-key'] = target.key;
  headers['anthropic-version'] = headerOf(target.headers, 'anthropic-version') ?? anthropicVersion;
  headers['content-type'] = 'application/json';
  return headers;
}

/** Splits a comma-separated header value into its parts. */
const splitList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

/**
 * claude.model_headers_settings: `{ "<model>": { "<header>": ["v1", "v2"] | "v" } }`. Values are
 * merged into the headers, list-style: anthropic-beta values are appended without duplicates. Headers
 * the setting may not send (options/model-headers.ts) are left out.
 */
export function applyModelHeaders(headers: Record<string, string>, model: string, options: AdapterOptions): Record<string, string> {
  let settings: Record<string, Record<string, unknown>>;
  try {
    settings = options.json<Record<string, Record<string, unknown>>>('claude.model_headers_settings') ?? {};
  } catch {
    return headers;
  }
  const extras = settings[model];
  if (!extras || typeof extras !== 'object') return headers;
  for (const [rawName, rawValue] of Object.entries(extras)) {
    // A header the setting may not send (only a hand-edited database holds one: saving refuses it) is left out.
    if (modelHeaderProblem(rawName, rawValue) !== null) continue;
    const name = rawName.toLowerCase();
    const values = (Array.isArray(rawValue) ? rawValue : [rawValue]).filter((v): v is string => typeof v === 'string');
    const merged = [...splitList(headers[name])];
    for (const value of values.flatMap((v) => splitList(v))) if (!merged.includes(value)) merged.push(value);
    if (merged.length > 0) headers[name] = merged.join(',');
  }
  return headers;
}
