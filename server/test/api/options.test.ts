import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('system options (super admin)', () => {
  let server: TestServer;
  let root: LoggedIn;
  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server.stop());

  const valueOf = async (key: string) =>
    ((await root.client.get('/api/option/')).body.data as Array<{ key: string; value: string }>).find((o) => o.key === key)?.value;

  it('lists every option as key/value strings, secrets left out', async () => {
    const res = await root.client.get('/api/option/');
    expect(res.status).toBe(200);
    const keys = (res.body.data as Array<{ key: string; value: unknown }>).map((o) => o.key);
    expect(keys).toContain('SystemName');
    expect(keys).toContain('QuotaPerUnit');
    expect(keys).not.toContain('SMTPToken');
    expect(keys).not.toContain('GitHubClientSecret');
    expect((res.body.data as Array<{ value: unknown }>).every((o) => typeof o.value === 'string')).toBe(true);
  });

  it('stores strings, numbers and booleans as strings and applies them at once', async () => {
    expect((await root.client.put('/api/option/', { key: 'SystemName', value: 'My Gate' })).body).toEqual({ success: true, message: '更新成功', data: null });
    expect((await root.client.put('/api/option/', { key: 'QuotaForNewUser', value: 2500 })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'DrawingEnabled', value: true })).status).toBe(200);
    expect(await valueOf('SystemName')).toBe('My Gate');
    expect(await valueOf('QuotaForNewUser')).toBe('2500');
    expect(await valueOf('DrawingEnabled')).toBe('true');
    expect((await server.client().get('/api/status')).body.data).toMatchObject({ system_name: 'My Gate', enable_drawing: true });
    const stored = await server.ctx.storage.db.selectFrom('options').selectAll().where('key', '=', 'QuotaForNewUser').executeTakeFirst();
    expect(stored?.value).toBe('2500');
  });

  it('sets a secret without ever listing it', async () => {
    expect((await root.client.put('/api/option/', { key: 'SMTPToken', value: 'smtp-secret-value' })).status).toBe(200);
    expect((await root.client.get('/api/option/')).text).not.toContain('smtp-secret-value');
  });

  it('stores SQL-like and markup text literally', async () => {
    const notice = "' OR 1=1 --; DROP TABLE options; <script>alert(1)</script>";
    expect((await root.client.put('/api/option/', { key: 'Notice', value: notice })).status).toBe(200);
    expect((await server.client().get('/api/notice')).body.data).toBe(notice);
  });

  it.each([
    [{ key: 'NoSuchKey', value: 'x' }, '未知的配置项：NoSuchKey'],
    [{ key: 'QuotaForNewUser', value: 'lots' }, 'QuotaForNewUser 必须是数字'],
    [{ key: 'QuotaForNewUser', value: -1 }, 'QuotaForNewUser 不能小于 0'],
    [{ key: 'DrawingEnabled', value: 'yes' }, 'DrawingEnabled 必须是 true 或 false'],
    [{ key: 'GroupRatio', value: '{not json' }, 'GroupRatio 不是合法的 JSON 字符串'],
  ])('refuses %j', async (body, message) => {
    const res = await root.client.put('/api/option/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
  });

  it('refuses wrong shapes with 400', async () => {
    for (const body of [{ key: 'Notice' }, { key: 'Notice', value: null }, { key: 'Notice', value: { a: 1 } }, { value: 'x' }, { key: '', value: 'x' }]) {
      const res = await root.client.put('/api/option/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.success).toBe(false);
    }
    expect((await root.client.put('/api/option/', undefined, { raw: '{"key":' })).status).toBe(400);
  });

  it('is for the super admin only', async () => {
    const admin = await createUserAndLogin(server, root.client, 'opsadmin', 10);
    const user = await createUserAndLogin(server, root.client, 'opsuser', 1);
    for (const actor of [admin, user]) {
      expect((await actor.client.get('/api/option/')).status).toBe(403);
      expect((await actor.client.put('/api/option/', { key: 'Notice', value: 'x' })).status).toBe(403);
    }
    expect((await server.client().get('/api/option/')).status).toBe(401);
  });

  it('derives group names from GroupRatio', async () => {
    await root.client.put('/api/option/', { key: 'GroupRatio', value: JSON.stringify({ default: 1, team: 0.8 }) });
    expect((await root.client.get('/api/group/')).body.data).toEqual(['default', 'team']);
  });
});
