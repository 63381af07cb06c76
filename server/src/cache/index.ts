import { MemoryCache } from './memory.js';
import { RedisCache } from './redis.js';
import type { Cache } from './types.js';

export type { Cache } from './types.js';

export async function openCache(redisUrl: string | null, prefix?: string): Promise<Cache> {
  if (!redisUrl) return new MemoryCache();
  const cache = new RedisCache(redisUrl, prefix);
  await cache.ping();
  return cache;
}
