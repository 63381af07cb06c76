import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

const redisUrl = process.env.TEST_REDIS_URL;
const clusterKinds = storageKinds().filter((kind) => kind !== 'sqlite');
const isEnabled = Boolean(redisUrl) && clusterKinds.length > 0;

/** Two instances on one PostgreSQL or MySQL database sharing one Redis: an answer kept by one is a hit on the other. */
// Skipped (listed as such) without TEST_REDIS_URL and TEST_POSTGRES_DSN or TEST_MYSQL_DSN.
describe.skipIf(!isEnabled).each(isEnabled ? clusterKinds : ['postgres' as const])(
  'the response cache on two instances of %s sharing Redis',
  (kind) => {
    let mock: MockOpenAi;
    let database: TestDatabase;
    let servers: TestServer[];

    beforeAll(async () => {
      mock = await startMockOpenAi();
      database = await createTestDatabase(kind);
      const env = { REDIS_CONN_STRING: redisUrl!, REDIS_KEY_PREFIX: `mg-rc-${randomBytes(4).toString('hex')}:` };
      servers = [await startTestServer({ database, env: { ...env, NODE_TYPE: 'master' } })];
      servers.push(await startTestServer({ database, env: { ...env, NODE_TYPE: 'slave' } }));
    });
    afterAll(async () => {
      for (const server of [...(servers ?? [])].reverse()) await server.stop();
      await database?.drop();
      await mock?.close();
    });

    const send = async (server: TestServer, apiKey: string, body: unknown) => {
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, cache: response.headers.get('x-modelgate-cache'), text: await response.text() };
    };

    it('keeps answers in Redis: a miss on one instance is a hit on the other, for streams too, billed once upstream', async () => {
      const [first, second] = servers as [TestServer, TestServer];
      expect(first.relay.answers.kind).toBe('redis');
      await createRelayChannel(first.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'] });
      await second.relay.channels.rebuild();
      // The group setting, saved on one instance, reaches the other through Redis.
      await setOption(first.ctx, 'response_cache.groups', JSON.stringify({ default: 60 }));
      for (let i = 0; i < 100 && second.ctx.options.get('response_cache.groups') === '{}'; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const userId = await createRelayUser(first.ctx, { quota: 10_000_000 });
      const token = await createRelayToken(first.ctx, userId);

      for (const stream of [false, true]) {
        const body = {
          model: 'gpt-4o-mini',
          temperature: 0,
          stream,
          messages: [{ role: 'user', content: `shared ${stream} ${Date.now()}` }],
        };
        const upstream = mock.requests.length;
        const missed = await send(first, token.apiKey, body);
        expect(missed.status, missed.text).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const hit = await send(second, token.apiKey, body);
        expect([missed.cache, hit.cache]).toEqual(['miss', 'hit']);
        expect(hit.text).toBe(missed.text);
        expect(mock.requests.length).toBe(upstream + 1);
      }
      await flushRelay(first.ctx);
      await flushRelay(second.ctx);
      const logs = await first.ctx.storage.db
        .selectFrom('logs')
        .select(['quota', 'other'])
        .where('type', '=', 2)
        .where('user_id', '=', userId)
        .execute();
      expect(logs).toHaveLength(4);
      const hits = logs.filter((log) => JSON.parse(log.other).cache_hit === true);
      expect(hits.map((log) => Number(log.quota))).toEqual([0, 0]);
    });
  },
);
