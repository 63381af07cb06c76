import { createHash } from 'node:crypto';
import type { OptionStore } from '../../options/store.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { RelayExchange } from '../pipeline/exchange.js';
import type { RelayJob } from '../pipeline/relay-job.js';

/**
 * Body fields that do not change the answer: who the end user is (`user`, Claude's and OpenAI's
 * `metadata`). They are left out of the key so the same question from two of a caller's end users is
 * one entry. Everything else — messages, tools, every sampling parameter, `stream_options` (it adds
 * the usage chunk) — is part of the key.
 */
const unkeyedFields = new Set(['user', 'metadata']);

/** The APIs' default temperature is 1: a request that sets none is not deterministic. */
const defaultTemperature = 1;

/** What the cache does for one eligible call. */
export interface CacheRequest {
  key: string;
  ttlSeconds: number;
  /** `Cache-Control: no-cache`: the answer is fetched anew (and stored), nothing is looked up. */
  isRefresh: boolean;
}

/** Why an enabled call is not cached (answered as `X-ModelGate-Cache: bypass`), or its request. */
export type CacheDecision = CacheRequest | { bypass: string };

/** JSON with object keys sorted at every level, so key order in the client's body does not matter. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields = Object.keys(record)
    .filter((name) => record[name] !== undefined)
    .sort();
  return `{${fields.map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`).join(',')}}`;
}

function cacheControlOf(exchange: RelayExchange): string {
  const value = exchange.headers['cache-control'];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).toLowerCase();
}

/**
 * Decides whether a call the cache is on for may be answered from it, and its key: sha256 of the
 * scope (the user, or the group when `response_cache.share_in_group` is on), the route, the model,
 * stream or not, a pinned channel, the forwarded client headers and query options, and the canonical body.
 */
export function cacheRequestOf(
  options: OptionStore,
  exchange: RelayExchange,
  caller: RelayCaller,
  job: RelayJob,
  ttlSeconds: number,
): CacheDecision {
  const cacheable = job.responseCache;
  if (!cacheable) return { bypass: 'endpoint' };
  const control = cacheControlOf(exchange);
  if (control.includes('no-store')) return { bypass: 'no-store' };
  const temperature = cacheable.temperature ?? defaultTemperature;
  if (typeof temperature !== 'number' || temperature > options.number('response_cache.max_temperature')) return { bypass: 'temperature' };
  if ((job.answers ?? 1) !== 1) return { bypass: 'answers' };
  const body: Record<string, unknown> = {};
  for (const name in cacheable.body) if (!unkeyedFields.has(name)) body[name] = cacheable.body[name];
  const canonical = canonicalJson(body);
  if (canonical.length > options.number('response_cache.max_entry_bytes')) return { bypass: 'size' };
  const scope = options.bool('response_cache.share_in_group') ? `group:${caller.group}` : `user:${caller.user.id}`;
  const path = exchange.path.length > 1 && exchange.path.endsWith('/') ? exchange.path.slice(0, -1) : exchange.path;
  const hash = createHash('sha256');
  hash.update(
    canonicalJson(['v1', scope, path, job.model, job.isStream, caller.pinnedChannelId, job.clientHeaders ?? {}, job.requestOptions ?? {}]),
  );
  hash.update(canonical);
  return { key: hash.digest('hex'), ttlSeconds, isRefresh: control.includes('no-cache') };
}
