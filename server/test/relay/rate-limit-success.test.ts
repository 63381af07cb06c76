import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseKind } from '../../src/config.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase } from '../helpers/test-storage.js';

const redisUrl = process.env.TEST_REDIS_URL;

const chat = (url: string, apiKey: string, model: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

async function limitSuccesses(server: TestServer, successCount: number): Promise<void> {
  await server.ctx.options.set(
    'ModelRatio',
    JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), 'rl-slow': 1, 'rl-fail': 1 }),
  );
  await server.ctx.options.set('ModelRequestRateLimitSuccessCount', String(successCount));
  await server.ctx.options.set('ModelRequestRateLimitDurationMinutes', '10');
  await server.ctx.options.set('ModelRequestRateLimitCount', '0');
  await server.ctx.options.set('ModelRequestRateLimitEnabled', 'true');
}

const statuses = async (responses: Array<Promise<Response>>) =>
  await Promise.all(
    responses.map(async (response) => {
      const answer = await response;
      await answer.arrayBuffer();
      return answer.status;
    }),
  );

describe('ModelRequestRateLimitSuccessCount counts requests in flight', () => {
  let mock: MockOpenAi;
  let server: TestServer;
  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    await limitSuccesses(server, 5);
    // "slow": the upstream answers after 300 ms, so a burst is all in flight at once.
    await createRelayChannel(server.ctx, { key: 'slow', baseURL: mock.url, models: ['rl-slow'] });
    await createRelayChannel(server.ctx, { key: 'fail-400', baseURL: mock.url, models: ['rl-fail'], autoBan: false });
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('lets 5 of 40 concurrent requests through, the rest get 429', async () => {
    const { apiKey } = await createRelayToken(server.ctx, await createRelayUser(server.ctx));
    const before = mock.requestsFor('slow').length;
    const seen = await statuses(Array.from({ length: 40 }, () => chat(server.url, apiKey, 'rl-slow')));
    expect(seen.filter((status) => status === 200)).toHaveLength(5);
    expect(seen.filter((status) => status === 429)).toHaveLength(35);
    expect(mock.requestsFor('slow').length - before).toBe(5);
    expect((await chat(server.url, apiKey, 'rl-slow')).status).toBe(429);
  });

  it('gives the slot back when a request fails, keeps it when it is billed', async () => {
    const { apiKey } = await createRelayToken(server.ctx, await createRelayUser(server.ctx));
    const failed = await statuses(Array.from({ length: 12 }, () => chat(server.url, apiKey, 'rl-fail')));
    expect(failed.every((status) => status === 400 || status === 429)).toBe(true);
    // The failures counted nothing: all 5 successes are still there, and no more.
    const served = await statuses(Array.from({ length: 8 }, () => chat(server.url, apiKey, 'rl-slow')));
    expect(served.filter((status) => status === 200)).toHaveLength(5);
    expect((await chat(server.url, apiKey, 'rl-fail')).status).toBe(429);
  });
});

const clusterKinds: Array<{ kind: DatabaseKind; dsn: string | undefined }> = [
  { kind: 'postgres', dsn: process.env.TEST_POSTGRES_DSN },
  { kind: 'mysql', dsn: process.env.TEST_MYSQL_DSN },
];

describe.each(clusterKinds)('ModelRequestRateLimitSuccessCount across two instances on $kind and one Redis', ({ kind, dsn }) => {
  let mock: MockOpenAi | null = null;
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0).reverse()) await server.stop();
    await mock?.close();
  });

  it.skipIf(!dsn || !redisUrl)('holds the limit cluster-wide: 5 of 40 concurrent requests split over both instances', async () => {
    mock = await startMockOpenAi();
    const database = await createTestDatabase(kind);
    const shared = { REDIS_CONN_STRING: redisUrl!, REDIS_KEY_PREFIX: `mg-rl-${randomBytes(4).toString('hex')}:` };
    try {
      servers.push(await startTestServer({ database, env: { ...shared, NODE_TYPE: 'master' } }));
      servers.push(await startTestServer({ database, env: { ...shared, NODE_TYPE: 'slave' } }));
      const [a, b] = servers as [TestServer, TestServer];
      await limitSuccesses(a, 5);
      await limitSuccesses(b, 5);
      await createRelayChannel(a.ctx, { key: 'slow', baseURL: mock.url, models: ['rl-slow'] });
      await b.relay.channels.rebuild();
      const { apiKey } = await createRelayToken(a.ctx, await createRelayUser(a.ctx));
      const seen = await statuses(Array.from({ length: 40 }, (_, index) => chat((index % 2 === 0 ? a : b).url, apiKey, 'rl-slow')));
      expect(seen.filter((status) => status === 200)).toHaveLength(5);
      expect(seen.filter((status) => status === 429)).toHaveLength(35);
    } finally {
      for (const server of servers.splice(0).reverse()) await server.stop();
      await database.drop();
    }
  });
});
