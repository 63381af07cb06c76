import { MemoryCache } from './memory.js';
import { RedisCache } from './redis.js';
import type { Cache } from './types.js';

export type { Cache } from './types.js';

/** The cache: Redis when a URL is given (its connection errors go to `onConnectionError`, at most one a minute), else memory. */
export async function openCache(redisUrl: string | null, prefix?: string, onConnectionError?: (error: Error) => void): Promise<Cache> {
  if (!redisUrl) return new MemoryCache();
  const cache = new RedisCache(redisUrl, prefix, onConnectionError);
  await cache.ping();
  return cache;
}
