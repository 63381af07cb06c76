import type { OptionStore } from '../../options/store.js';
import type { RelayCaller } from '../pipeline/authenticate.js';

/**
 * Seconds the response cache keeps this caller's answers, 0 when it is off for the call: the token's
 * own setting (tokens.response_cache_ttl), else its group's in `response_cache.groups`. This is the
 * one check every relayed call pays (a field and a lookup in an option parsed once), so a gateway
 * that does not use the cache hashes and copies nothing.
 */
export function responseCacheTtl(options: OptionStore, caller: RelayCaller): number {
  const own = caller.token?.responseCacheTtl ?? 0;
  if (own > 0) return own;
  const groups = options.json<Record<string, unknown>>('response_cache.groups');
  if (!Object.hasOwn(groups, caller.group)) return 0;
  const ttl = groups[caller.group];
  return typeof ttl === 'number' && ttl > 0 ? ttl : 0;
}
