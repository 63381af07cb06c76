import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseKind } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-storage.js';

/**
 * Several instances of ModelGate on one database and one Redis, as docs/scaling.md describes:
 * the first is the master (it migrates), the second NODE_TYPE=slave; both share SESSION_SECRET,
 * REDIS_CONN_STRING and REDIS_KEY_PREFIX.
 */
const redisUrl = process.env.TEST_REDIS_URL;
const dsnByKind: Array<{ kind: DatabaseKind; dsn: string | undefined }> = [
  { kind: 'postgres', dsn: process.env.TEST_POSTGRES_DSN },
  { kind: 'mysql', dsn: process.env.TEST_MYSQL_DSN },
];

interface Cluster {
  a: TestServer;
  b: TestServer;
  stop(): Promise<void>;
}

async function startCluster(kind: DatabaseKind, env: Record<string, string>): Promise<Cluster> {
  const database: TestDatabase = await createTestDatabase(kind);
  const shared = { REDIS_CONN_STRING: redisUrl!, REDIS_KEY_PREFIX: `mg-cluster-${randomBytes(4).toString('hex')}:`, ...env };
  const started: TestServer[] = [];
  const stop = async () => {
    for (const server of started.reverse()) await server.stop();
    await database.drop();
  };
  try {
    started.push(await startTestServer({ database, env: { ...shared, NODE_TYPE: 'master' } }));
    started.push(await startTestServer({ database, env: { ...shared, NODE_TYPE: 'slave' } }));
  } catch (error) {
    await stop();
    throw error;
  }
  return { a: started[0]!, b: started[1]!, stop };
}

describe.each(dsnByKind)('two instances on one $kind database and one Redis', ({ kind, dsn }) => {
  let cluster: Cluster | null = null;
  afterEach(async () => {
    await cluster?.stop();
    cluster = null;
  });

  it.skipIf(!dsn || !redisUrl)('share one per-IP rate-limit count: 6 hits on A and 5 on B make the 11th a 429', async () => {
    cluster = await startCluster(kind, { GLOBAL_API_RATE_LIMIT: '10', GLOBAL_API_RATE_LIMIT_DURATION: '300' });
    expect(cluster.a.ctx.config.isMaster).toBe(true);
    expect(cluster.b.ctx.config.isMaster).toBe(false);
    const onA = cluster.a.client();
    const onB = cluster.b.client();
    for (let i = 1; i <= 6; i += 1) expect((await onA.get('/api/status')).status, `hit ${i} on A`).toBe(200);
    for (let i = 7; i <= 10; i += 1) expect((await onB.get('/api/status')).status, `hit ${i} on B`).toBe(200);
    const eleventh = await onB.get('/api/status');
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toMatchObject({ success: false, data: null });
    expect(eleventh.headers.get('retry-after')).toBe('300');
    // A sees the same exhausted window.
    expect((await onA.get('/api/status')).status).toBe(429);
  });

  it.skipIf(!dsn || !redisUrl)("see each other's option changes within a second", async () => {
    // SYNC_FREQUENCY is long, so only the Redis notification can make B see the change in time.
    cluster = await startCluster(kind, { SYNC_FREQUENCY: '3600' });
    const onB = cluster.b.client();
    expect((await onB.get('/api/status')).body.data.system_name).toBe('ModelGate');

    const name = `Gate ${randomBytes(3).toString('hex')}`;
    const started = performance.now();
    await cluster.a.ctx.options.set('SystemName', name);
    let seen = '';
    while (performance.now() - started < 2000) {
      seen = (await onB.get('/api/status')).body.data.system_name;
      if (seen === name) break;
      await sleep(10);
    }
    const elapsed = performance.now() - started;
    console.log(`[cluster ${kind}] option change visible on instance B after ${elapsed.toFixed(0)} ms`);
    expect(seen).toBe(name);
    expect(elapsed).toBeLessThan(1000);

    // And the other way round: a change on the slave reaches the master.
    await cluster.b.ctx.options.set('Notice', 'maintenance tonight');
    const onA = cluster.a.client();
    const deadline = performance.now() + 1000;
    let notice = '';
    while (performance.now() < deadline && notice !== 'maintenance tonight') {
      notice = (await onA.get('/api/notice')).body.data;
      if (notice !== 'maintenance tonight') await sleep(10);
    }
    expect(notice).toBe('maintenance tonight');
  });

  it.skipIf(!dsn || !redisUrl)(
    'accept a session signed in on the other instance, and a root option change through the API reaches both',
    async (context) => {
      cluster = await startCluster(kind, { SYNC_FREQUENCY: '3600' });
      const { a, b } = cluster;
      const accountsRoutes = [
        { method: 'POST', url: '/api/setup' },
        { method: 'POST', url: '/api/user/login' },
        { method: 'PUT', url: '/api/option' },
      ];
      if (!accountsRoutes.every((route) => a.app.hasRoute(route)))
        return context.skip('the accounts API (setup, login, options) is not mounted yet');

      const password = 'cluster-root-pw-1';
      const setup = await a.client().post('/api/setup', { username: 'root', password, confirmPassword: password });
      expect(setup.body, JSON.stringify(setup.body)).toMatchObject({ success: true });
      const onA = a.client();
      const login = await onA.post('/api/user/login', { username: 'root', password });
      expect(login.body, JSON.stringify(login.body)).toMatchObject({ success: true });
      expect(onA.cookie).toMatch(/^session=/);

      // Same SESSION_SECRET: B accepts the cookie A signed.
      const onB = b.client();
      onB.cookie = onA.cookie;
      onB.userId = login.body.data.id;
      const self = await onB.get('/api/user/self');
      expect(self.status).toBe(200);
      expect(self.body.data).toMatchObject({ id: login.body.data.id, username: 'root' });

      const name = `Gate ${randomBytes(3).toString('hex')}`;
      const started = performance.now();
      const saved = await onB.put('/api/option/', { key: 'SystemName', value: name });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      let seen = '';
      const watcher = a.client();
      while (performance.now() - started < 2000 && seen !== name) {
        seen = (await watcher.get('/api/status')).body.data.system_name;
        if (seen !== name) await sleep(10);
      }
      const elapsed = performance.now() - started;
      console.log(`[cluster ${kind}] PUT /api/option/ on B visible on A after ${elapsed.toFixed(0)} ms`);
      expect(seen).toBe(name);
      expect(elapsed).toBeLessThan(1000);
    },
  );
});
