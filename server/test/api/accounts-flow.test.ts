import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, recordResponseBodies, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { storageKinds } from '../helpers/test-storage.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe.each(storageKinds())('accounts flow on %s', (kind) => {
  let server: TestServer;
  let root: LoggedIn;
  const bodies: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ kind });
  });
  afterAll(async () => server?.stop());

  it('setup → login → create → search → disable → enable → promote → demote → delete', async () => {
    const status = await server.client().get('/api/setup');
    expect(status.body.data).toEqual({ status: false, root_init: false, database_type: kind });
    root = await setupRootAndLogin(server, recordResponseBodies(server.client(), bodies));

    const created = await root.client.post('/api/user/', { username: 'Flow-User', password: 'flow-pass-1', display_name: "O'Brien" });
    expect(created.status, created.text).toBe(200);
    const id = created.body.data.id as number;
    expect(id).toBeGreaterThan(root.userId);
    const flow = await login(recordResponseBodies(server.client(), bodies), 'Flow-User', 'flow-pass-1');
    expect(flow.userId).toBe(id);

    const search = await root.client.get(`/api/user/search?keyword=${encodeURIComponent("O'Bri")}`);
    expect(search.body.data).toMatchObject({ total: 1, page: 1, page_size: 10 });
    expect(search.body.data.items[0]).toMatchObject({ id, username: 'Flow-User', status: 1, role: 1, deleted_at: null });

    const manage = async (action: string) => {
      const res = await root.client.post('/api/user/manage', { id, action });
      expect(res.status, `${action}: ${res.text}`).toBe(200);
      return res.body.data;
    };
    expect(await manage('disable')).toEqual({ status: 2, role: 1 });
    // Disabling ends the session (401); after enabling the user signs in again.
    expect((await flow.client.get('/api/user/self')).status).toBe(401);
    expect(await manage('enable')).toEqual({ status: 1, role: 1 });
    expect(await manage('enable')).toEqual({ status: 1, role: 1 });
    expect((await flow.client.get('/api/user/self')).status).toBe(401);
    await login(flow.client, 'Flow-User', 'flow-pass-1');
    expect((await flow.client.get('/api/user/self')).status).toBe(200);
    expect(await manage('promote')).toEqual({ status: 1, role: 10 });
    expect((await flow.client.get('/api/user/')).status).toBe(200);
    expect(await manage('demote')).toEqual({ status: 1, role: 1 });
    expect((await flow.client.get('/api/user/')).status).toBe(403);

    await root.client.put('/api/user/', { id, quota: 750_000, group: 'vip' });
    const aff = (await flow.client.get('/api/user/aff')).body.data as string;
    expect((await server.client().post('/api/user/register', { username: 'invitee', password: 'invitee-pw', aff_code: aff })).status).toBe(
      200,
    );
    expect((await root.client.get(`/api/user/${id}`)).body.data).toMatchObject({ quota: 750_000, group: 'vip', aff_count: 1 });

    expect(await manage('delete')).toEqual({ status: 1, role: 1 });
    expect((await flow.client.get('/api/user/self')).status).toBe(401);
    expect((await root.client.post('/api/user/manage', { id, action: 'enable' })).status).toBe(400);
    const listed = (await root.client.get('/api/user/?page_size=100')).body.data;
    expect(listed.total).toBe(3);
    expect(listed.items.find((u: { id: number }) => u.id === id).deleted_at).toBeGreaterThan(0);

    const rootRefusal = await root.client.post('/api/user/manage', { id: root.userId, action: 'demote' });
    expect(rootRefusal.status).toBe(403);
    expect(
      (await root.client.post('/api/setup', { username: 'again', password: 'again-pass', confirmPassword: 'again-pass' })).status,
    ).toBe(409);

    const logs = await server.ctx.storage.db.selectFrom('logs').select(['type', 'content']).where('user_id', '=', id).execute();
    expect(logs).toEqual([{ type: 3, content: '管理员将用户额度从 ＄0.000000 额度 修改为 ＄1.500000 额度' }]);
  });

  it('kept every password and hash out of the responses', async () => {
    const hashes = (await server.ctx.storage.db.selectFrom('users').select('password').execute()).map((row) => row.password);
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) {
      expect(body).not.toMatch(/"password"/);
      for (const hash of hashes) expect(body).not.toContain(hash);
    }
  });
});
