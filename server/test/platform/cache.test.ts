import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryCache } from '../../src/cache/memory.js';
import { RedisCache } from '../../src/cache/redis.js';
import type { Cache } from '../../src/cache/types.js';

const redisUrl = process.env.TEST_REDIS_URL;
const randomPrefix = () => `mg-test-${randomBytes(4).toString('hex')}:`;

/** Waits until `check` holds, polling every 10 ms; fails after `ms`. */
async function eventually(check: () => boolean, ms = 1000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await sleep(10);
  }
}

interface Backend {
  name: string;
  enabled: boolean;
  /** Two caches that share one namespace (two instances of one cluster). */
  open(): Promise<{ first: Cache; second: Cache; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'memory',
    enabled: true,
    async open() {
      const cache = new MemoryCache();
      return { first: cache, second: cache, close: () => cache.close() };
    },
  },
  {
    name: 'redis',
    enabled: Boolean(redisUrl),
    async open() {
      const prefix = randomPrefix();
      const first = new RedisCache(redisUrl!, prefix);
      const second = new RedisCache(redisUrl!, prefix);
      await Promise.all([first.ping(), second.ping()]);
      return { first, second, close: async () => void (await Promise.all([first.close(), second.close()])) };
    },
  },
];

describe.each(backends)('$name cache backend', (backend) => {
  const opened: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });
  const open = async () => {
    const pair = await backend.open();
    opened.push(pair.close);
    return pair;
  };

  it.skipIf(!backend.enabled)('sets, gets and deletes string values; a missing key is null', async () => {
    const { first, second } = await open();
    expect(await first.get('k')).toBeNull();
    await first.set('k', 'v1');
    expect(await second.get('k')).toBe('v1');
    await second.set('k', 'v2');
    expect(await first.get('k')).toBe('v2');
    await first.del('k');
    expect(await second.get('k')).toBeNull();
    await first.del('never-set');
  });

  it.skipIf(!backend.enabled)('expires a value after its TTL', async () => {
    const { first } = await open();
    await first.set('short', 'x', 1);
    await first.set('long', 'y');
    expect(await first.get('short')).toBe('x');
    await sleep(1100);
    expect(await first.get('short')).toBeNull();
    expect(await first.get('long')).toBe('y');
  });

  it.skipIf(!backend.enabled)('counts hits in a fixed window shared by every holder of the namespace', async () => {
    const { first, second } = await open();
    expect(await first.count('rl:x')).toBe(0);
    expect(await first.hit('rl:x', 60)).toBe(1);
    expect(await second.hit('rl:x', 60)).toBe(2);
    expect(await first.hit('rl:x', 60, 5)).toBe(7);
    expect(await second.count('rl:x')).toBe(7);
    expect(await first.count('rl:other')).toBe(0);
  });

  it.skipIf(!backend.enabled)('counts concurrent hits exactly', async () => {
    const { first, second } = await open();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? first : second).hit('rl:burst', 60)));
    expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await first.count('rl:burst')).toBe(50);
  });

  it.skipIf(!backend.enabled)('takes slots of a limited window atomically and gives them back, never below 0', async () => {
    const { first, second } = await open();
    const taken = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? first : second).take('rl:slots', 7, 60)));
    expect(taken.filter(Boolean)).toHaveLength(7);
    expect(await first.count('rl:slots')).toBe(7);
    await second.giveBack('rl:slots');
    expect(await first.take('rl:slots', 7, 60)).toBe(true);
    expect(await second.take('rl:slots', 7, 60)).toBe(false);
    await first.giveBack('rl:never-taken');
    expect(await first.count('rl:never-taken')).toBe(0);
  });

  it.skipIf(!backend.enabled)('starts a new window once the first one ends, and later hits do not extend it', async () => {
    const { first } = await open();
    expect(await first.hit('rl:w', 1)).toBe(1);
    await sleep(600);
    expect(await first.hit('rl:w', 1)).toBe(2);
    await sleep(550);
    expect(await first.count('rl:w')).toBe(0);
    expect(await first.hit('rl:w', 1)).toBe(1);
  });

  it.skipIf(!backend.enabled)('delivers a publish to every subscriber, the publisher included, and only on its channel', async () => {
    const { first, second } = await open();
    const heardByFirst: string[] = [];
    const heardBySecond: string[] = [];
    const heardElsewhere: string[] = [];
    await first.subscribe('topic', (message) => heardByFirst.push(message));
    await second.subscribe('topic', (message) => heardBySecond.push(message));
    await second.subscribe('other-topic', (message) => heardElsewhere.push(message));
    await first.publish('topic', 'one');
    await second.publish('topic', 'two');
    await eventually(() => heardByFirst.length === 2 && heardBySecond.length === 2);
    expect(heardByFirst).toEqual(['one', 'two']);
    expect(heardBySecond).toEqual(['one', 'two']);
    expect(heardElsewhere).toEqual([]);
  });

  it.skipIf(!backend.enabled)('calls every handler subscribed to one channel', async () => {
    const { first } = await open();
    const heard: string[] = [];
    await first.subscribe('multi', (message) => heard.push(`a:${message}`));
    await first.subscribe('multi', (message) => heard.push(`b:${message}`));
    await first.publish('multi', 'm');
    await eventually(() => heard.length === 2);
    expect(heard.sort()).toEqual(['a:m', 'b:m']);
  });
});

describe.skipIf(!redisUrl)('Redis key prefix', () => {
  it('keeps clusters with different REDIS_KEY_PREFIX values apart: keys, counts and messages', async () => {
    const a = new RedisCache(redisUrl!, randomPrefix());
    const b = new RedisCache(redisUrl!, randomPrefix());
    try {
      await a.set('shared-name', 'from-a');
      expect(await b.get('shared-name')).toBeNull();
      await a.hit('rl:api:127.0.0.1', 60);
      expect(await b.count('rl:api:127.0.0.1')).toBe(0);
      const heardByB: string[] = [];
      const heardByA: string[] = [];
      await b.subscribe('options:changed', (message) => heardByB.push(message));
      await a.subscribe('options:changed', (message) => heardByA.push(message));
      await a.publish('options:changed', 'SystemName');
      await eventually(() => heardByA.length === 1);
      await sleep(50);
      expect(heardByB).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('stores keys under the prefix in Redis itself', async () => {
    const prefix = randomPrefix();
    const cache = new RedisCache(redisUrl!, prefix);
    const { Redis } = await import('ioredis');
    const raw = new Redis(redisUrl!);
    try {
      await cache.hit('rl:api:10.0.0.1', 30);
      expect(await raw.get(`${prefix}rl:api:10.0.0.1`)).toBe('1');
      const ttl = await raw.pttl(`${prefix}rl:api:10.0.0.1`);
      expect(ttl).toBeGreaterThan(25_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
    } finally {
      await cache.close();
      await raw.quit();
    }
  });
});

describe('a Redis cache whose server is away', () => {
  it('reports connection errors once a minute through its handler, and keeps retrying', async () => {
    // A port that accepts nothing: a real client failing to reach it.
    const net = await import('node:net');
    const listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as import('node:net').AddressInfo;
    await new Promise((resolve) => listener.close(resolve));
    const reported: Error[] = [];
    const cache = new RedisCache(`redis://127.0.0.1:${port}`, randomPrefix(), (error) => reported.push(error));
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      stderr.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      await expect(cache.get('k')).rejects.toThrow();
      await eventually(() => reported.length > 0);
      // ioredis reconnects every few hundred milliseconds: still one report.
      await sleep(800);
      expect(reported).toHaveLength(1);
      expect(reported[0]!.message).toMatch(/ECONNREFUSED/);
      expect(stderr.join('')).not.toMatch(/Unhandled error event/);
    } finally {
      process.stderr.write = write;
      await cache.close();
    }
  });
});
