import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const redisUrl = process.env.TEST_REDIS_URL;
const cacheBackends = [
  { name: 'memory', enabled: true, env: {} as Record<string, string> },
  {
    name: 'redis',
    enabled: Boolean(redisUrl),
    env: { REDIS_CONN_STRING: redisUrl ?? '', REDIS_KEY_PREFIX: `mg-test-${randomBytes(4).toString('hex')}:` },
  },
];

describe.each(cacheBackends)('global API rate limit on the $name cache', ({ enabled, env }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (!enabled) return;
    server = await startTestServer({ env: { ...env, GLOBAL_API_RATE_LIMIT: '5', GLOBAL_API_RATE_LIMIT_DURATION: '120' } });
  });
  afterAll(async () => server?.stop());

  it.skipIf(!enabled)('answers the 6th /api request in the window with 429, the envelope and Retry-After', async () => {
    const client = server.client();
    for (let i = 1; i <= 5; i += 1) {
      const res = await client.get('/api/status');
      expect(res.status, `request ${i}`).toBe(200);
    }
    const limited = await client.get('/api/status');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, message: expect.stringMatching(/.+/), data: null });
    expect(limited.headers.get('retry-after')).toBe('120');
    expect(limited.headers.get('x-request-id')).toBeTruthy();
    // Every /api route shares the one per-IP count; the console and unknown paths are not counted.
    expect((await client.get('/api/notice')).status).toBe(429);
    expect((await client.get('/')).status).toBe(200);
  });

  it.skipIf(!enabled)('counts in the cache under rl:api:<ip> so instances sharing Redis share the count', async () => {
    expect(await server.ctx.cache.count('rl:api:127.0.0.1')).toBeGreaterThanOrEqual(6);
  });
});

describe('rate limit 0 disables the rule', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { GLOBAL_API_RATE_LIMIT: '0' } });
  });
  afterAll(async () => server?.stop());

  it('never limits and never counts', async () => {
    const client = server.client();
    for (let i = 0; i < 20; i += 1) expect((await client.get('/api/status')).status).toBe(200);
    expect(await server.ctx.cache.count('rl:api:127.0.0.1')).toBe(0);
  });
});
