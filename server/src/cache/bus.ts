import type { Cache } from './types.js';

/**
 * Change notifications between the management API and in-memory caches, on every instance.
 * Topics: 'channels' (a channel or its abilities changed), 'tokens' (payload: token id),
 * 'users' (payload: user id), 'cooldowns' (payload: channel id:until ms). With Redis every instance hears every publish, its own included.
 */
export type BusTopic = 'channels' | 'tokens' | 'users' | 'cooldowns';

export interface Bus {
  publish(topic: BusTopic, payload?: string): Promise<void>;
  subscribe(topic: BusTopic, handler: (payload: string) => void): Promise<void>;
}

export function createBus(cache: Cache): Bus {
  return {
    publish: (topic, payload = '') => cache.publish(`bus:${topic}`, payload),
    subscribe: (topic, handler) => cache.subscribe(`bus:${topic}`, handler),
  };
}
