import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewLog } from '../../src/db/schema.js';
import type { ApiClient } from '../helpers/api-client.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const now = () => Math.floor(Date.now() / 1000);

describe.each(storageKinds())('usage logs on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let alice: ApiClient;
  let aliceId: number;
  let bobId: number;
  let channelId: number;
  const t0 = now() - 10 * 86400;

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
  // Multi-row inserts need every column on SQLite (it has no DEFAULT keyword in VALUES).
  const insertLogs = (rows: NewLog[]) =>
    server.ctx.storage.db
      .insertInto('logs')
      .values(rows.map((row) => ({ ...blank, ...row })))
      .execute();

  beforeAll(async () => {
    server = await startTestServer({ kind });
    ({ client: admin } = await signedInClient(server, { username: 'admin', role: 10 }));
    ({ client: alice, userId: aliceId } = await signedInClient(server, { username: 'alice' }));
    ({ userId: bobId } = await signedInClient(server, { username: 'bob' }));
    const created = await admin.post('/api/channel/', { name: 'upstream-a', key: 'k', models: ['gpt-4o'] });
    channelId = created.body.data.ids[0];
    const other = JSON.stringify({ model_ratio: 2.5, admin_info: { use_channel: [String(channelId)] } });
    await insertLogs([
      {
        user_id: aliceId,
        username: 'alice',
        created_at: t0,
        type: 2,
        token_name: 'tok-a',
        model_name: 'gpt-4o',
        quota: 100,
        prompt_tokens: 10,
        completion_tokens: 5,
        channel_id: channelId,
        group: 'default',
        other,
      },
      {
        user_id: aliceId,
        username: 'alice',
        created_at: t0 + 100,
        type: 2,
        token_name: 'tok-b',
        model_name: 'gpt-4o-mini',
        quota: 50,
        prompt_tokens: 3,
        completion_tokens: 2,
        channel_id: channelId,
        group: 'vip',
        other,
      },
      { user_id: aliceId, username: 'alice', created_at: t0 + 200, type: 1, content: 'top up', quota: 5000 },
      {
        user_id: bobId,
        username: 'bob',
        created_at: t0 + 300,
        type: 2,
        token_name: 'tok-c',
        model_name: 'gpt-4o',
        quota: 70,
        prompt_tokens: 7,
        completion_tokens: 7,
        channel_id: 424242,
        group: 'default',
      },
      {
        user_id: aliceId,
        username: 'alice',
        created_at: now() - 5,
        type: 2,
        token_name: 'tok-a',
        model_name: 'gpt-4o',
        quota: 30,
        prompt_tokens: 100,
        completion_tokens: 20,
        channel_id: channelId,
        group: 'default',
        other,
      },
      {
        user_id: bobId,
        username: 'bob',
        created_at: now() - 2,
        type: 2,
        token_name: 'tok-c',
        model_name: 'gpt-4o',
        quota: 40,
        prompt_tokens: 50,
        completion_tokens: 50,
        channel_id: channelId,
        group: 'default',
      },
    ]);
  });
  afterAll(async () => server?.stop());

  it("lists every user's logs for admins with channel names, newest first, paged", async () => {
    const res = await admin.get('/api/log/?p=1&page_size=4');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ page: 1, page_size: 4, total: 6 });
    expect(res.body.data.items).toHaveLength(4);
    const first = res.body.data.items[0];
    expect(first).toMatchObject({ username: 'bob', channel: channelId, channel_name: 'upstream-a', quota: 40 });
    const page2 = await admin.get('/api/log/?p=2&page_size=4');
    expect(page2.body.data.items).toHaveLength(2);
    const unknownChannel = (await admin.get('/api/log/?channel=424242')).body.data.items;
    expect(unknownChannel).toHaveLength(1);
    expect(unknownChannel[0]).toMatchObject({ channel: 424242, channel_name: '' });
    const withAdminInfo = (await admin.get('/api/log/?username=alice&type=2&token_name=tok-b')).body.data.items;
    expect(withAdminInfo).toHaveLength(1);
    expect(JSON.parse(withAdminInfo[0].other).admin_info).toBeDefined();
  });

  it('filters by type, username, token, model, time range, channel and group', async () => {
    const total = async (query: string) => (await admin.get(`/api/log/?${query}`)).body.data.total;
    expect(await total('type=1')).toBe(1);
    expect(await total('type=2')).toBe(5);
    expect(await total('type=0')).toBe(6);
    expect(await total('username=bob')).toBe(2);
    expect(await total('token_name=tok-a')).toBe(2);
    expect(await total('model_name=gpt-4o')).toBe(4);
    expect(await total(`start_timestamp=${t0 + 100}&end_timestamp=${t0 + 300}`)).toBe(3);
    expect(await total(`channel=${channelId}`)).toBe(4);
    expect(await total('group=vip')).toBe(1);
    expect(await total('username=alice&model_name=gpt-4o&group=default')).toBe(2);
    expect((await admin.get('/api/log/?type=x')).status).toBe(400);
    expect((await admin.get('/api/log/?page_size=101')).status).toBe(400);
  });

  it('shows users only their own logs without admin details', async () => {
    const res = await alice.get('/api/log/self/?page_size=100');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.total).toBe(4);
    for (const item of res.body.data.items) {
      expect(item.user_id).toBe(aliceId);
      expect(item).not.toHaveProperty('channel');
      expect(item).not.toHaveProperty('channel_id');
      expect(item).not.toHaveProperty('channel_name');
      if (item.other) expect(JSON.parse(item.other).admin_info).toBeUndefined();
    }
    expect(JSON.parse(res.body.data.items.find((i: any) => i.token_name === 'tok-b').other)).toEqual({ model_ratio: 2.5 });
    // username and channel filters are admin-only and ignored for the self view
    expect((await alice.get('/api/log/self?username=bob')).body.data.total).toBe(4);
    expect((await alice.get(`/api/log/self?channel=${channelId}&type=2`)).body.data.total).toBe(3);
    expect((await alice.get('/api/log/self?token_name=tok-a')).body.data.total).toBe(2);
  });

  it('computes quota, rpm and tpm for the same filters', async () => {
    const all = await admin.get('/api/log/stat');
    expect(all.body.data).toEqual({ quota: 100 + 50 + 70 + 30 + 40, rpm: 2, tpm: 120 + 100 });
    expect((await admin.get('/api/log/stat?username=bob')).body.data).toEqual({ quota: 110, rpm: 1, tpm: 100 });
    expect((await admin.get(`/api/log/stat?start_timestamp=${t0}&end_timestamp=${t0 + 150}`)).body.data.quota).toBe(150);
    expect((await alice.get('/api/log/self/stat')).body.data).toEqual({ quota: 180, rpm: 1, tpm: 120 });
    expect((await alice.get('/api/log/self/stat?model_name=nothing')).body.data).toEqual({ quota: 0, rpm: 0, tpm: 0 });
  });

  it('enforces roles on log endpoints', async () => {
    const anonymous = server.client();
    for (const path of ['/api/log/', '/api/log/stat', '/api/log/self/', '/api/log/self/stat']) {
      expect((await anonymous.get(path)).status, path).toBe(401);
    }
    expect((await alice.get('/api/log/')).status).toBe(403);
    expect((await alice.get('/api/log/stat')).status).toBe(403);
    expect((await alice.delete(`/api/log/?target_timestamp=${now()}`)).status).toBe(403);
    expect((await admin.get('/api/log/self/')).body.data.total).toBe(0);
  });

  it('cleans logs older than the target in batches and counts them', async () => {
    const missing = await admin.delete('/api/log/');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('请选择日志记录时间');
    expect((await admin.delete('/api/log/?target_timestamp=abc')).body.message).toBe('请选择日志记录时间');
    const old = Array.from({ length: 2500 }, (_, i) => ({ user_id: bobId, username: 'bob', created_at: t0 - 1000 - i, type: 2, quota: 1 }));
    for (let i = 0; i < old.length; i += 500) await insertLogs(old.slice(i, i + 500));
    const res = await admin.delete(`/api/log/?target_timestamp=${t0 + 150}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toBe(2502);
    expect((await admin.get('/api/log/')).body.data.total).toBe(4);
    expect((await admin.delete(`/api/log/?target_timestamp=${t0 + 150}`)).body.data).toBe(0);
  });
});
