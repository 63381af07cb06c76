import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aggregateQuotaData, quotaDataAggregatedAtKey, quotaDataWatermarkKey } from '../../src/api/data/aggregate-quota-data.js';
import { startQuotaDataJob } from '../../src/api/data/quota-data-job.js';
import type { NewLog } from '../../src/db/schema.js';
import type { ApiClient } from '../helpers/api-client.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const hour = 3600;
const now = () => Math.floor(Date.now() / 1000);

describe.each(storageKinds())('dashboard quota data on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let alice: ApiClient;
  let aliceId: number;
  let bobId: number;
  const h0 = Math.floor(now() / hour) * hour - 48 * hour;

  const blank = {
    content: '',
    token_name: '',
    model_name: '',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    channel_id: 0,
    group: '',
    other: '',
  };
  const insertLogs = (rows: NewLog[]) =>
    server.ctx.storage.db
      .insertInto('logs')
      .values(rows.map((row) => ({ ...blank, ...row })))
      .execute();
  const consume = (
    userId: number,
    username: string,
    model: string,
    createdAt: number,
    quota: number,
    tokens: [number, number],
  ): NewLog => ({
    user_id: userId,
    username,
    type: 2,
    model_name: model,
    created_at: createdAt,
    quota,
    prompt_tokens: tokens[0],
    completion_tokens: tokens[1],
  });
  const buckets = () =>
    server.ctx.storage.db
      .selectFrom('quota_data')
      .select(['user_id', 'username', 'model_name', 'created_at', 'count', 'quota', 'token_used'])
      .orderBy('user_id')
      .orderBy('model_name')
      .orderBy('created_at')
      .execute();

  beforeAll(async () => {
    server = await startTestServer({ kind });
    ({ client: admin } = await signedInClient(server, { username: 'admin', role: 10 }));
    ({ client: alice, userId: aliceId } = await signedInClient(server, { username: 'alice' }));
    ({ userId: bobId } = await signedInClient(server, { username: 'bob' }));
  });
  afterAll(async () => server?.stop());

  it('says when the buckets were last aggregated and how often they are', async () => {
    const before = await admin.get('/api/data/');
    expect(before.status, before.text).toBe(200);
    expect(before.body).toMatchObject({ success: true, data: [], aggregated_at: 0, aggregation_interval_minutes: 5 });

    const at = now() - 42;
    expect(await aggregateQuotaData(server.ctx, { settleSeconds: 0, now: at })).toBe(0);
    const own = await alice.get('/api/data/self');
    expect(own.body).toMatchObject({ success: true, data: [], aggregated_at: at, aggregation_interval_minutes: 5 });
    await server.ctx.options.set('DataExportInterval', '2');
    try {
      expect((await admin.get('/api/data/')).body).toMatchObject({ aggregated_at: at, aggregation_interval_minutes: 2 });
    } finally {
      await server.ctx.options.set('DataExportInterval', '5');
    }
    // A later run moves it on; the key stays out of the option list like the watermark.
    await aggregateQuotaData(server.ctx, { settleSeconds: 0, now: at + 60 });
    expect((await admin.get('/api/data/')).body.aggregated_at).toBe(at + 60);
    expect(server.ctx.options.listPublic().some((option) => option.key === quotaDataAggregatedAtKey)).toBe(false);
  });

  it('folds consumption logs into hourly buckets exactly once', async () => {
    await insertLogs([
      consume(aliceId, 'alice', 'gpt-4o', h0 + 10, 100, [10, 5]),
      consume(aliceId, 'alice', 'gpt-4o', h0 + 3599, 50, [1, 1]),
      consume(aliceId, 'alice', 'gpt-4o', h0 + hour, 7, [2, 2]),
      consume(aliceId, 'alice', 'claude', h0 + 20, 30, [3, 0]),
      consume(bobId, 'bob', 'gpt-4o', h0 + 30, 40, [4, 4]),
      { user_id: aliceId, username: 'alice', type: 1, created_at: h0 + 40, quota: 99999 },
      { user_id: aliceId, username: 'alice', type: 3, created_at: h0 + 50, quota: 5, model_name: 'gpt-4o' },
    ]);
    expect(await aggregateQuotaData(server.ctx, { settleSeconds: 0 })).toBe(5);
    const expected = [
      { user_id: aliceId, username: 'alice', model_name: 'claude', created_at: h0, count: 1, quota: 30, token_used: 3 },
      { user_id: aliceId, username: 'alice', model_name: 'gpt-4o', created_at: h0, count: 2, quota: 150, token_used: 17 },
      { user_id: aliceId, username: 'alice', model_name: 'gpt-4o', created_at: h0 + hour, count: 1, quota: 7, token_used: 4 },
      { user_id: bobId, username: 'bob', model_name: 'gpt-4o', created_at: h0, count: 1, quota: 40, token_used: 8 },
    ];
    expect(await buckets()).toEqual(expected);
    expect(await aggregateQuotaData(server.ctx, { settleSeconds: 0 })).toBe(0);
    expect(await buckets()).toEqual(expected);

    await insertLogs([consume(aliceId, 'alice', 'gpt-4o', h0 + 100, 1, [1, 0]), consume(bobId, 'bob', 'gpt-4o', h0 + 2 * hour, 2, [0, 2])]);
    const [first, second] = await Promise.all([
      aggregateQuotaData(server.ctx, { settleSeconds: 0 }),
      aggregateQuotaData(server.ctx, { settleSeconds: 0 }),
    ]);
    expect(first + second).toBe(2);
    const after = await buckets();
    expect(after.find((b) => b.user_id === aliceId && b.model_name === 'gpt-4o' && b.created_at === h0)).toMatchObject({
      count: 3,
      quota: 151,
      token_used: 18,
    });
    expect(after).toHaveLength(5);
    const lastLog = await server.ctx.storage.db
      .selectFrom('logs')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirstOrThrow();
    const watermark = await server.ctx.storage.db
      .selectFrom('options')
      .select('value')
      .where('key', '=', quotaDataWatermarkKey)
      .executeTakeFirstOrThrow();
    expect(Number(watermark.value)).toBe(Number(lastLog.id));
    expect(server.ctx.options.listPublic().some((option) => option.key === quotaDataWatermarkKey)).toBe(false);
  });

  it('leaves logs younger than the settle window (and everything after them) for the next run', async () => {
    const recent = now();
    await insertLogs([
      consume(bobId, 'bob', 'settle-model', recent - 100, 1, [1, 1]),
      consume(bobId, 'bob', 'settle-model', recent, 2, [1, 1]),
      consume(bobId, 'bob', 'settle-model', recent - 200, 4, [1, 1]),
    ]);
    expect(await aggregateQuotaData(server.ctx, { settleSeconds: 10, now: recent })).toBe(1);
    expect(await aggregateQuotaData(server.ctx, { settleSeconds: 10, now: recent + 11 })).toBe(2);
    const rows = (await buckets()).filter((b) => b.model_name === 'settle-model');
    expect(rows.reduce((sum, b) => sum + b.count, 0)).toBe(3);
    expect(rows.reduce((sum, b) => sum + b.quota, 0)).toBe(7);
  });

  it('processes large backlogs in batches', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => consume(aliceId, 'alice', 'bulk', h0 + (i % 3) * hour, 1, [1, 1]));
    for (let i = 0; i < rows.length; i += 400) await insertLogs(rows.slice(i, i + 400));
    expect(await aggregateQuotaData(server.ctx, { settleSeconds: 0, batchSize: 500 })).toBe(1200);
    const bulk = (await buckets()).filter((b) => b.model_name === 'bulk');
    expect(bulk.map((b) => b.count)).toEqual([400, 400, 400]);
    expect(bulk.every((b) => b.token_used === 800)).toBe(true);
  });

  it("serves all users' buckets to admins and own buckets to users", async () => {
    const all = await admin.get('/api/data/');
    expect(all.status, all.text).toBe(200);
    const total = await server.ctx.storage.db
      .selectFrom('quota_data')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(all.body.data).toHaveLength(Number(total.n));
    const times = all.body.data.map((row: any) => row.created_at);
    expect(times).toEqual([...times].sort((a: number, b: number) => a - b));
    const bob = await admin.get('/api/data/?username=bob');
    expect(bob.body.data.length).toBeGreaterThan(0);
    expect(bob.body.data.every((row: any) => row.user_id === bobId)).toBe(true);
    const window = await admin.get(`/api/data/?start_timestamp=${h0 + hour}&end_timestamp=${h0 + hour}`);
    expect(window.body.data.length).toBeGreaterThan(0);
    expect(window.body.data.every((row: any) => row.created_at === h0 + hour)).toBe(true);

    const own = await alice.get(`/api/data/self?start_timestamp=${h0}&end_timestamp=${h0}&username=bob`);
    expect(own.status).toBe(200);
    expect(own.body.data.map((row: any) => row.model_name).sort()).toEqual(['bulk', 'claude', 'gpt-4o']);
    expect(own.body.data.every((row: any) => row.user_id === aliceId)).toBe(true);

    expect((await alice.get('/api/data/')).status).toBe(403);
    expect((await server.client().get('/api/data/self')).status).toBe(401);
    expect((await server.client().get('/api/data/')).status).toBe(401);
    expect((await admin.get('/api/data/?start_timestamp=yesterday')).status).toBe(400);
  });

  it('runs on the DataExportInterval schedule only while DataExportEnabled is on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const logSink = { debug: () => undefined, error: () => undefined } as never;
      await server.ctx.options.set('DataExportInterval', '2');
      await server.ctx.options.set('DataExportEnabled', 'false');
      await insertLogs([consume(bobId, 'bob', 'scheduled', h0, 5, [1, 1])]);
      const stop = startQuotaDataJob(server.ctx, logSink);
      const scheduled = async () => (await buckets()).filter((b) => b.model_name === 'scheduled');
      await vi.advanceTimersByTimeAsync(3 * 60_000);
      expect(await scheduled()).toHaveLength(0);

      await server.ctx.options.set('DataExportEnabled', 'true');
      await vi.advanceTimersByTimeAsync(60_000);
      await vi.waitFor(async () => expect(await scheduled()).toHaveLength(1), { timeout: 5000, interval: 20 });
      await stop();
      await insertLogs([consume(bobId, 'bob', 'after-stop', h0, 5, [1, 1])]);
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      expect((await buckets()).filter((b) => b.model_name === 'after-stop')).toHaveLength(0);
    } finally {
      vi.useRealTimers();
      await server.ctx.options.set('DataExportInterval', '5');
    }
  });
});
