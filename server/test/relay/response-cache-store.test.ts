import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCache } from '../../src/cache/redis.js';
import { decodeAnswer, encodeAnswer, MemoryAnswerStore, RedisAnswerStore, type StoredAnswer } from '../../src/relay/cache/answer-store.js';
import { setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { listenLocal } from '../helpers/local-http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const answerOf = (text: string): StoredAnswer => ({
  status: 200,
  contentType: 'application/json',
  isStream: false,
  chunks: [Buffer.from(text)],
  usage: { promptTokens: 3, completionTokens: 4, cachedTokens: 0 },
  quota: 7,
});

describe('the memory answer store', () => {
  it('keeps answers within its byte bound, the least recently used going first', async () => {
    // Each answer counts its bytes + 256: three of 744 bytes fill 3000.
    const store = new MemoryAnswerStore(() => 3000);
    for (const key of ['a', 'b', 'c']) await store.set(key, answerOf(key.repeat(744)), 60);
    expect(store.size).toBe(3);
    expect(store.totalBytes).toBe(3000);
    expect(await store.get('a')).not.toBeNull();
    await store.set('d', answerOf('d'.repeat(744)), 60);
    // 'b' was the least recently used ('a' was just read).
    expect(await store.get('b')).toBeNull();
    expect((await store.get('a'))!.chunks[0]!.toString()).toBe('a'.repeat(744));
    expect(await store.get('c')).not.toBeNull();
    expect(await store.get('d')).not.toBeNull();
    expect(store.totalBytes).toBe(3000);
    // An answer larger than the whole bound is not kept, and evicts nothing.
    await store.set('huge', answerOf('x'.repeat(5000)), 60);
    expect(await store.get('huge')).toBeNull();
    expect(store.size).toBe(3);
  });

  it('forgets an answer once its TTL has passed', async () => {
    let now = 1_000_000;
    const store = new MemoryAnswerStore(
      () => 1_000_000,
      () => now,
    );
    await store.set('k', answerOf('v'), 2);
    now += 1_999;
    expect(await store.get('k')).not.toBeNull();
    now += 1;
    expect(await store.get('k')).toBeNull();
    expect(store.totalBytes).toBe(0);
  });
});

describe('the Redis answer store', () => {
  it('reads back what it wrote, frames and all, and reads anything else as a miss', () => {
    const answer: StoredAnswer = {
      ...answerOf('x'),
      isStream: true,
      contentType: 'text/event-stream',
      chunks: [Buffer.from('data: 1\n\n'), Buffer.from('data: [DONE]\n\n')],
    };
    const decoded = decodeAnswer(encodeAnswer(answer))!;
    expect(decoded.chunks.map(String)).toEqual(['data: 1\n\n', 'data: [DONE]\n\n']);
    expect(decoded).toMatchObject({ status: 200, isStream: true, quota: 7, usage: { promptTokens: 3, completionTokens: 4 } });
    for (const bad of [
      'not json',
      '{}',
      JSON.stringify({ s: 200, t: 'x', st: false, c: [1], u: {}, q: 1 }),
      JSON.stringify({ s: 200, t: 'x', st: false, c: [], u: { promptTokens: -1, completionTokens: 0 }, q: 1 }),
    ]) {
      expect(decodeAnswer(bad)).toBeNull();
    }
  });

  it('answers a miss and keeps the call going when Redis is down', async () => {
    // A port that accepts nothing: a real client failing to reach it.
    const listener = http.createServer();
    const port = new URL(await listenLocal(listener)).port;
    await new Promise((resolve) => listener.close(resolve));
    const cache = new RedisCache(`redis://127.0.0.1:${port}`);
    const errors: unknown[] = [];
    const store = new RedisAnswerStore(cache, (error) => errors.push(error));
    try {
      await expect(store.set('k', answerOf('v'), 60)).resolves.toBeUndefined();
      await expect(store.get('k')).resolves.toBeNull();
      expect(errors.length).toBe(2);
    } finally {
      await cache.close();
    }
  });
});

describe('the response cache settings', () => {
  let server: TestServer;
  let root: LoggedIn;

  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server?.stop());

  it.each([
    ['response_cache.groups', 'not json'],
    ['response_cache.groups', '[]'],
    ['response_cache.groups', '{"default": -1}'],
    ['response_cache.groups', '{"default": 1.5}'],
    ['response_cache.groups', '{"default": "60"}'],
    ['response_cache.groups', '{"default": 2592001}'],
    ['response_cache.hit_ratio', '-0.1'],
    ['response_cache.hit_ratio', '1.5'],
    ['response_cache.max_temperature', '-1'],
    ['response_cache.share_in_group', 'yes'],
    ['response_cache.max_entry_bytes', '0'],
    ['response_cache.max_bytes', '-1'],
  ])('refuses %s = %s with a 400', async (key, value) => {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, res.text).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain(key);
  });

  it('saves valid values, which the relay reads at once', async () => {
    for (const [key, value] of [
      ['response_cache.groups', '{"default": 300, "vip": 0}'],
      ['response_cache.hit_ratio', '0.25'],
      ['response_cache.share_in_group', 'true'],
    ]) {
      const res = await root.client.put('/api/option/', { key, value });
      expect(res.status, res.text).toBe(200);
    }
    expect(server.ctx.options.json('response_cache.groups')).toEqual({ default: 300, vip: 0 });
    expect(server.ctx.options.number('response_cache.hit_ratio')).toBe(0.25);
    const english = await root.client.request(
      'PUT',
      '/api/option/',
      { key: 'response_cache.groups', value: '{"default": -1}' },
      { headers: { 'accept-language': 'en' } },
    );
    expect(english.body.message).toBe("response_cache.groups each group's value must be an integer from 0 to 2592000 (seconds)");
  });
});
