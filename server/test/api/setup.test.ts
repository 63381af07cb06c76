import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const valid = {
  username: 'admin',
  password: 'admin-pass-1',
  confirmPassword: 'admin-pass-1',
  SelfUseModeEnabled: true,
  DemoSiteEnabled: false,
};

describe('first-run setup', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it('reports setup not done, no root and the database type on a fresh database', async () => {
    const res = await server.client().get('/api/setup');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: '', data: { status: false, root_init: false, database_type: 'sqlite' } });
  });

  it.each([
    [{ ...valid, username: '' }, 'please enter admin username'],
    [{ ...valid, username: undefined }, 'please enter admin username'],
    [{ ...valid, username: 'a'.repeat(13) }, 'username must be at most 12 characters'],
    [{ ...valid, password: 'short', confirmPassword: 'short' }, 'password must be at least 8 characters'],
    [{ ...valid, password: 'x'.repeat(21), confirmPassword: 'x'.repeat(21) }, 'password must be at most 20 characters'],
    [{ ...valid, confirmPassword: 'admin-pass-2' }, 'the two passwords entered do not match'],
  ])('refuses %j with its message', async (body, message) => {
    const res = await server.client().post('/api/setup', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
    expect((await server.client().get('/api/setup')).body.data.status).toBe(false);
  });

  it('answers wrong types and malformed JSON with 400 envelopes', async () => {
    const wrongType = await server.client().post('/api/setup', { ...valid, SelfUseModeEnabled: 'yes' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.success).toBe(false);
    const malformed = await server.client().post('/api/setup', undefined, { raw: '{"username": "a",' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ success: false, message: '请求体不是合法的 JSON', data: null });
  });

  it('refuses self-use mode and demo mode together, creating nothing', async () => {
    const res = await server.client().post('/api/setup', { ...valid, SelfUseModeEnabled: true, DemoSiteEnabled: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: '自用模式和演示站点模式不能同时开启', data: null });
    expect((await server.client().get('/api/setup')).body.data.status).toBe(false);
    expect(await server.ctx.storage.db.selectFrom('users').select('id').execute()).toHaveLength(0);
  });

  it('creates the super admin, stores the usage mode and is refused afterwards', async () => {
    const res = await server.client().post('/api/setup', valid);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect((await server.client().get('/api/setup')).body.data).toEqual({ status: true, root_init: true, database_type: 'sqlite' });
    const status = (await server.client().get('/api/status')).body.data;
    expect(status).toMatchObject({ setup: true, self_use_mode_enabled: true, demo_site_enabled: false });
    const root = await server.ctx.storage.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    // The operator's first call with their own token is served: the root starts with 100,000,000 as in new-api.
    expect(root).toMatchObject({ username: 'admin', role: 100, status: 1, quota: 100_000_000 });
    expect(root.password).toMatch(/^\$2[aby]\$10\$/);
    expect(await server.ctx.storage.db.selectFrom('setups').selectAll().execute()).toHaveLength(1);

    const again = await server.client().post('/api/setup', { ...valid, username: 'other' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, message: '系统已经初始化完成', data: null });
    expect(await server.ctx.storage.db.selectFrom('users').select('id').execute()).toHaveLength(1);
  });

  it('leaves the person who set up signed in as the new root', async () => {
    const fresh = await startTestServer();
    try {
      const client = fresh.client();
      const res = await client.post('/api/setup', { ...valid, SelfUseModeEnabled: false });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { username: 'admin', role: 100, status: 1, display_name: 'Root User' } });
      expect(Object.keys(res.body.data).sort()).toEqual(['display_name', 'group', 'id', 'role', 'status', 'username']);
      const cookie = res.headers.getSetCookie().find((line) => line.startsWith('session='))!;
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      client.userId = res.body.data.id;
      const self = await client.get('/api/user/self');
      expect(self.status, self.text).toBe(200);
      expect(self.body.data).toMatchObject({ id: res.body.data.id, username: 'admin', role: 100 });
      // A second attempt is refused and signs nobody in.
      const other = fresh.client();
      expect((await other.post('/api/setup', { ...valid, username: 'intruder' })).status).toBe(409);
      expect(other.cookie).toBe('');
    } finally {
      await fresh.stop();
    }
  });

  it('lets the new super admin sign in', async () => {
    const res = await server.client().post('/api/user/login', { username: 'admin', password: 'admin-pass-1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ username: 'admin', role: 100 });
  });
});

describe('setup when a super admin already exists (imported database)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.ctx.storage.db.insertInto('users').values({ username: 'legacy', password: 'x', role: 100 }).execute();
  });
  afterAll(async () => server.stop());

  it('needs no account fields and only stores the usage mode', async () => {
    expect((await server.client().get('/api/setup')).body.data).toMatchObject({ status: false, root_init: true });
    const client = server.client();
    const res = await client.post('/api/setup', { DemoSiteEnabled: true });
    expect(res.status).toBe(200);
    // Nobody was created, so nobody is signed in: the imported root signs in with its own password.
    expect(res.body).toEqual({ success: true, message: '系统初始化完成', data: null });
    expect(client.cookie).toBe('');
    expect((await server.client().get('/api/status')).body.data).toMatchObject({
      setup: true,
      demo_site_enabled: true,
      self_use_mode_enabled: false,
    });
    expect(await server.ctx.storage.db.selectFrom('users').select('username').execute()).toEqual([{ username: 'legacy' }]);
  });
});
