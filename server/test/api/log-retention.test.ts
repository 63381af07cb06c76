import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLogRetention } from '../../src/api/logs/log-retention.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

const day = 24 * 60 * 60;
const redisUrl = process.env.TEST_REDIS_URL;

describe.each(storageKinds())('log retention on %s', (kind) => {
  let database: TestDatabase;
  let servers: TestServer[];

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // Two instances on one database; sharing Redis when it is configured (else each has its own lock).
    const env: Record<string, string> = redisUrl
      ? { REDIS_CONN_STRING: redisUrl, REDIS_KEY_PREFIX: `mg-retention-${randomBytes(4).toString('hex')}:` }
      : {};
    servers = [await startTestServer({ database, env: { ...env, NODE_TYPE: 'master' } })];
    if (redisUrl) servers.push(await startTestServer({ database, env: { ...env, NODE_TYPE: 'slave' } }));
  });
  afterAll(async () => {
    for (const server of (servers ?? []).reverse()) await server.stop();
    await database?.drop();
  });

  async function seed(now: number): Promise<void> {
    const db = servers[0]!.ctx.storage.db;
    const rows = [];
    // 2,500 logs 40 days old (more than two deletion batches), 30 logs 10 days old, 5 from today.
    for (let index = 0; index < 2500; index += 1)
      rows.push({ user_id: 1, created_at: now - 40 * day - index, type: 2, content: `old ${index}` });
    for (let index = 0; index < 30; index += 1) rows.push({ user_id: 1, created_at: now - 10 * day, type: 2, content: `recent ${index}` });
    for (let index = 0; index < 5; index += 1) rows.push({ user_id: 1, created_at: now - 60, type: 3, content: `today ${index}` });
    for (let start = 0; start < rows.length; start += 500)
      await db
        .insertInto('logs')
        .values(rows.slice(start, start + 500))
        .execute();
  }

  const count = async () =>
    Number(
      (
        await servers[0]!.ctx.storage.db
          .selectFrom('logs')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('off by default; with LogRetentionDays 30 deletes exactly the older logs, once a day, one instance at a time', async () => {
    const now = Math.floor(Date.now() / 1000);
    await seed(now);
    expect(await count()).toBe(2535);
    expect(await runLogRetention(servers[0]!.ctx)).toBeNull();
    for (const server of servers) await server.ctx.options.set('LogRetentionDays', '30');
    // Every instance tries at once: one deletes, the others find the lock taken or the day's run done.
    const results = await Promise.all(servers.map((server) => runLogRetention(server.ctx)));
    expect(results.filter((removed) => removed !== null)).toEqual([2500]);
    expect(await count()).toBe(35);
    // Not due again the same day, on any instance.
    for (const server of servers) expect(await runLogRetention(server.ctx)).toBeNull();
    // A day later the 10-day-old logs are still kept; with 7 days they go.
    for (const server of servers) await server.ctx.options.set('LogRetentionDays', '7');
    expect(await runLogRetention(servers[0]!.ctx, { now: Date.now() + day * 1000 })).toBe(30);
    expect(await count()).toBe(5);
  });

  it('an admin sets it through the options API; out of range is refused; a common user cannot', async () => {
    const { client: admin } = await signedInClient(servers[0]!, { username: `adm${randomBytes(3).toString('hex')}`, role: 10 });
    expect((await admin.request('PUT', '/api/option/', { key: 'LogRetentionDays', value: '90' })).body.success).toBe(true);
    expect(servers[0]!.ctx.options.number('LogRetentionDays')).toBe(90);
    const bad = await admin.request('PUT', '/api/option/', { key: 'LogRetentionDays', value: '-1' });
    expect(bad.body.success).toBe(false);
    const { client: user } = await signedInClient(servers[0]!, { username: `usr${randomBytes(3).toString('hex')}` });
    const denied = await user.request('PUT', '/api/option/', { key: 'LogRetentionDays', value: '1' });
    expect(denied.body.success).toBe(false);
  });
});
