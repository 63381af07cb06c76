import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const t0 = 1_760_000_000;

describe.each(storageKinds())('drawing and music task logs on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let alice: ApiClient;
  let aliceId: number;
  let bobId: number;

  const drawing = {
    code: 1,
    action: 'IMAGINE',
    mj_id: '',
    prompt: 'a cat',
    prompt_en: 'a cat',
    description: '',
    state: '',
    submit_time: 0,
    start_time: 0,
    finish_time: 0,
    image_url: '',
    status: 'SUCCESS',
    progress: '100%',
    fail_reason: '',
    channel_id: 0,
    quota: 0,
    buttons: '',
    properties: '',
  };
  const music = {
    created_at: 0,
    updated_at: 0,
    task_id: '',
    platform: 'suno',
    channel_id: 0,
    quota: 0,
    action: 'MUSIC',
    status: 'SUCCESS',
    fail_reason: '',
    submit_time: 0,
    start_time: 0,
    finish_time: 0,
    progress: '100%',
    properties: '',
    data: '',
  };

  beforeAll(async () => {
    server = await startTestServer({ kind });
    ({ client: admin } = await signedInClient(server, { username: 'admin', role: 10 }));
    ({ client: alice, userId: aliceId } = await signedInClient(server, { username: 'alice' }));
    ({ userId: bobId } = await signedInClient(server, { username: 'bob' }));
    const db = server.ctx.storage.db;
    // Multi-row inserts need every column on SQLite (no DEFAULT keyword in VALUES).
    await db
      .insertInto('midjourneys')
      .values([
        {
          ...drawing,
          user_id: aliceId,
          mj_id: 'mj-a1',
          submit_time: t0,
          finish_time: t0 + 40,
          channel_id: 7,
          state: 'ok',
          image_url: 'https://img.example/a1.png',
        },
        {
          ...drawing,
          user_id: aliceId,
          mj_id: 'mj-a2',
          submit_time: t0 + 100,
          channel_id: 8,
          status: 'FAILURE',
          fail_reason: 'banned prompt',
          progress: '0%',
        },
        { ...drawing, user_id: bobId, mj_id: 'mj-b1', submit_time: t0 + 200, channel_id: 7 },
      ])
      .execute();
    await db
      .insertInto('tasks')
      .values([
        { ...music, user_id: aliceId, task_id: 'task-a1', created_at: t0, submit_time: t0, finish_time: t0 + 75, channel_id: 9 },
        {
          ...music,
          user_id: bobId,
          task_id: 'task-b1',
          created_at: t0 + 50,
          submit_time: t0 + 50,
          channel_id: 9,
          action: 'LYRICS',
          status: 'IN_PROGRESS',
          progress: '40%',
        },
        {
          ...music,
          user_id: aliceId,
          task_id: 'task-a2',
          created_at: t0 + 90,
          submit_time: t0 + 90,
          channel_id: 10,
          status: 'FAILURE',
          fail_reason: 'quota',
        },
      ])
      .execute();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('drawing log: admins see every task with the channel columns and filter by channel, id and time', async () => {
    const all = await admin.get('/api/mj/?p=0');
    expect(all.body.success).toBe(true);
    expect(all.body.data.map((row: any) => row.mj_id)).toEqual(['mj-b1', 'mj-a2', 'mj-a1']);
    // The poll lease stays internal even for admins.
    expect(all.body.data[0]).toHaveProperty('upstream_id');
    expect(all.body.data[0]).not.toHaveProperty('lease_until');
    expect(all.body.data[2]).toMatchObject({
      channel_id: 7,
      code: 1,
      state: 'ok',
      image_url: 'https://img.example/a1.png',
      created_at: t0,
    });
    expect((await admin.get('/api/mj/?channel_id=7')).body.data.map((row: any) => row.mj_id)).toEqual(['mj-b1', 'mj-a1']);
    expect((await admin.get('/api/mj/?mj_id=mj-a2')).body.data.map((row: any) => row.mj_id)).toEqual(['mj-a2']);
    expect(
      (await admin.get(`/api/mj/?start_timestamp=${t0 + 50}&end_timestamp=${t0 + 150}`)).body.data.map((row: any) => row.mj_id),
    ).toEqual(['mj-a2']);
  });

  it('drawing log: a user sees only their own tasks, without the admin-only columns, and no channel filter', async () => {
    const own = await alice.get('/api/mj/self/?p=0&channel_id=8');
    expect(own.body.data.map((row: any) => row.mj_id)).toEqual(['mj-a2', 'mj-a1']);
    for (const row of own.body.data) {
      expect(row).not.toHaveProperty('channel_id');
      expect(row).not.toHaveProperty('code');
      expect(row).not.toHaveProperty('state');
      expect(row).not.toHaveProperty('upstream_id');
      expect(row).not.toHaveProperty('token_id');
      expect(row).not.toHaveProperty('lease_owner');
      expect(row).not.toHaveProperty('notify_hook');
    }
    expect((await alice.get('/api/mj/self/?mj_id=mj-b1')).body.data).toEqual([]);
    expect((await alice.get('/api/mj/')).status).toBe(403);
    expect((await server.client().get('/api/mj/self/')).status).toBe(401);
  });

  it('music log: admin and self, filters, the channel for admins only', async () => {
    const all = await admin.get('/api/task/?p=0');
    expect(all.body.data.map((row: any) => row.task_id)).toEqual(['task-a2', 'task-b1', 'task-a1']);
    expect(all.body.data[1]).toMatchObject({ channel_id: 9, platform: 'suno', action: 'LYRICS', status: 'IN_PROGRESS', progress: '40%' });
    expect((await admin.get('/api/task/?channel_id=10')).body.data.map((row: any) => row.task_id)).toEqual(['task-a2']);
    expect((await admin.get(`/api/task/?start_timestamp=${t0 + 10}`)).body.data.map((row: any) => row.task_id)).toEqual([
      'task-a2',
      'task-b1',
    ]);
    const own = await alice.get('/api/task/self?task_id=task-a1');
    expect(own.body.data).toHaveLength(1);
    expect(own.body.data[0]).toMatchObject({ task_id: 'task-a1', finish_time: t0 + 75 });
    expect(own.body.data[0]).not.toHaveProperty('channel_id');
    expect((await alice.get('/api/task/self')).body.data.map((row: any) => row.task_id)).toEqual(['task-a2', 'task-a1']);
    expect((await alice.get('/api/task/')).status).toBe(403);
  });

  it('pages from 0 with page_size, and the page after the last is empty', async () => {
    expect((await admin.get('/api/task/?p=0&page_size=2')).body.data.map((row: any) => row.task_id)).toEqual(['task-a2', 'task-b1']);
    expect((await admin.get('/api/task/?p=1&page_size=2')).body.data.map((row: any) => row.task_id)).toEqual(['task-a1']);
    expect((await admin.get('/api/task/?p=2&page_size=2')).body.data).toEqual([]);
    expect((await admin.get('/api/mj/?p=1&page_size=1')).body.data.map((row: any) => row.mj_id)).toEqual(['mj-a2']);
  });

  it('refuses bad input with a 400 and a message, never a 500', async () => {
    for (const path of [
      '/api/mj/?p=x',
      '/api/mj/?p=-1',
      '/api/task/?page_size=1000',
      '/api/task/?start_timestamp=99999999999999',
      '/api/mj/?channel_id=1.5',
      `/api/task/?task_id=${'x'.repeat(300)}`,
      '/api/mj/self/?mj_id=a%00b',
    ]) {
      const res = await admin.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.success, path).toBe(false);
      expect(res.body.message, path).toBeTruthy();
    }
  });
});
