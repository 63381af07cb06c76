import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, recordResponseBodies, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('user administration', () => {
  let server: TestServer;
  let root: LoggedIn;
  let admin: LoggedIn;
  let otherAdmin: LoggedIn;
  let regular: LoggedIn;
  const bodies: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server, recordResponseBodies(server.client(), bodies));
    admin = await createUserAndLogin(server, root.client, 'admin1', 10, recordResponseBodies(server.client(), bodies));
    otherAdmin = await createUserAndLogin(server, root.client, 'admin2', 10);
    regular = await createUserAndLogin(server, root.client, 'user1', 1, recordResponseBodies(server.client(), bodies));
  });
  afterAll(async () => server.stop());

  it('answers 403 to a regular user and 401 without session on every admin and root route', async () => {
    const routes = [
      ['GET', '/api/user/'],
      ['GET', '/api/user/search?keyword=a'],
      ['GET', `/api/user/${root.userId}`],
      ['POST', '/api/user/'],
      ['PUT', '/api/user/'],
      ['POST', '/api/user/manage'],
      ['GET', '/api/group/'],
      ['GET', '/api/option/'],
      ['PUT', '/api/option/'],
    ] as const;
    for (const [method, path] of routes) {
      const body =
        method === 'GET'
          ? undefined
          : { id: regular.userId, action: 'promote', username: 'x', password: 'abcdefgh', key: 'Notice', value: 'x' };
      const asUser = await regular.client.request(method, path, body);
      expect(asUser.status, `${method} ${path}`).toBe(403);
      expect(asUser.body).toEqual({ success: false, message: '无权进行此操作，权限不足', data: null });
      const anonymous = await server.client().request(method, path, body);
      expect(anonymous.status, `${method} ${path}`).toBe(401);
    }
    // Admins manage the operation-side options; the system tab's stay the root's (options.test.ts has the detail).
    expect((await admin.client.get('/api/option/')).status).toBe(200);
    expect((await admin.client.put('/api/option/', { key: 'ServerAddress', value: 'https://x.example' })).status).toBe(403);
  });

  it('lists users page by page, newest first, soft-deleted ones included', async () => {
    const victim = await createUserAndLogin(server, root.client, 'gone');
    await root.client.post('/api/user/manage', { id: victim.userId, action: 'delete' });
    const first = await admin.client.get('/api/user/?p=1&page_size=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ page: 1, page_size: 2, total: 5 });
    expect(first.body.data.items.map((u: { username: string }) => u.username)).toEqual(['gone', 'user1']);
    expect(first.body.data.items[0].deleted_at).toBeGreaterThan(0);
    expect(first.body.data.items[1].deleted_at).toBeNull();
    const third = await admin.client.get('/api/user/?p=3&page_size=2');
    expect(third.body.data.items.map((u: { username: string }) => u.username)).toEqual(['root']);
    const defaults = await admin.client.get('/api/user/');
    expect(defaults.body.data).toMatchObject({ page: 1, page_size: 10, total: 5 });
    expect((await admin.client.get('/api/user/?page_size=1000')).body.data.page_size).toBe(100);
    for (const bad of ['p=0', 'p=abc', 'page_size=0', 'page_size=-5', 'p=1.5']) {
      const res = await admin.client.get(`/api/user/?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.success).toBe(false);
    }
  });

  it('searches by id, username, display name and email, and by group', async () => {
    await root.client.put('/api/user/', { id: regular.userId, display_name: 'Kim Lee', email: 'kim@corp.example', group: 'vip' });
    const names = async (query: string) =>
      ((await admin.client.get(`/api/user/search?${query}`)).body.data.items as Array<{ username: string }>).map((u) => u.username);
    expect(await names('keyword=user1')).toEqual(['user1']);
    expect(await names('keyword=Kim')).toEqual(['user1']);
    expect(await names('keyword=corp.example')).toEqual(['user1']);
    expect(await names(`keyword=${regular.userId}`)).toEqual(['user1']);
    expect(await names('keyword=admin')).toEqual(['admin2', 'admin1']);
    expect(await names('group=vip')).toEqual(['user1']);
    expect(await names('keyword=admin&group=vip')).toEqual([]);
    expect(await names('keyword=%25')).toEqual([]);
    expect(await names('keyword=_')).toEqual([]);
    expect(await names(`keyword=${encodeURIComponent("' OR 1=1 --")}`)).toEqual([]);
    const paged = await admin.client.get('/api/user/search?keyword=admin&p=2&page_size=1');
    expect(paged.body.data).toMatchObject({ page: 2, page_size: 1, total: 2 });
    expect(paged.body.data.items.map((u: { username: string }) => u.username)).toEqual(['admin1']);
  });

  it('shows one user of a lower role, or oneself; 403 above, 404 unknown, 400 malformed', async () => {
    const res = await admin.client.get(`/api/user/${regular.userId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: regular.userId, username: 'user1', remark: '' });
    expect(res.body.data).not.toHaveProperty('password');
    expect(res.body.data).not.toHaveProperty('access_token');
    expect((await admin.client.get(`/api/user/${admin.userId}`)).status).toBe(200);
    const higher = await admin.client.get(`/api/user/${root.userId}`);
    expect(higher.status).toBe(403);
    expect(higher.body.message).toBe('无权获取同级或更高等级用户的信息');
    expect((await admin.client.get(`/api/user/${otherAdmin.userId}`)).status).toBe(403);
    expect((await root.client.get(`/api/user/${otherAdmin.userId}`)).status).toBe(200);
    const unknown = await admin.client.get('/api/user/999999');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, message: '用户不存在', data: null });
    expect((await admin.client.get('/api/user/abc')).status).toBe(400);
    expect((await admin.client.get('/api/user/-1')).status).toBe(400);
    expect((await admin.client.get('/api/user/99999999999999999999')).status).toBe(400);
  });

  it('creates users of a lower role only', async () => {
    const res = await admin.client.post('/api/user/', { username: 'made', password: 'made-pass', display_name: 'Made' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('用户账户创建成功！');
    expect((await admin.client.get(`/api/user/${res.body.data.id}`)).body.data).toMatchObject({
      username: 'made',
      display_name: 'Made',
      role: 1,
    });
    const noDisplay = await admin.client.post('/api/user/', { username: 'made2', password: 'made-pass' });
    expect((await admin.client.get(`/api/user/${noDisplay.body.data.id}`)).body.data.display_name).toBe('made2');
    const tooHigh = await admin.client.post('/api/user/', { username: 'boss', password: 'boss-pass', role: 10 });
    expect(tooHigh.status).toBe(403);
    expect(tooHigh.body.message).toBe('无法创建权限大于等于自己的用户');
    expect((await root.client.post('/api/user/', { username: 'root2', password: 'root-pass', role: 100 })).status).toBe(403);
    expect((await admin.client.post('/api/user/', { username: 'odd', password: 'odd-passw', role: 5 })).status).toBe(400);
    expect((await admin.client.post('/api/user/', { username: 'made', password: 'made-pass' })).status).toBe(409);
  });

  it.each([
    [{ password: 'abcdefgh' }, '用户名和密码不能为空！'],
    [{ username: 'nopass' }, '用户名和密码不能为空！'],
    [{ username: '', password: '' }, '用户名和密码不能为空！'],
    [{ username: 'x'.repeat(13), password: 'abcdefgh' }, '用户名长度不得超过 12 位！'],
    [{ username: 'shorty', password: 'abc' }, '密码长度不得小于 8 位！'],
    [{ username: 'longy', password: 'z'.repeat(21) }, '密码长度不得大于 20 位！'],
  ])('refuses to create %j', async (body, message) => {
    const res = await admin.client.post('/api/user/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
  });

  it('updates a lower-role user and logs a quota change as a management log row', async () => {
    const res = await admin.client.put('/api/user/', {
      id: regular.userId,
      display_name: 'Kim',
      group: 'default',
      quota: 1_000_000,
      email: '',
      remark: "' OR 1=1 --",
      github_id: 'ignored',
      role: 100,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('用户信息更新成功！');
    const user = (await admin.client.get(`/api/user/${regular.userId}`)).body.data;
    expect(user).toMatchObject({ display_name: 'Kim', group: 'default', quota: 1_000_000, remark: "' OR 1=1 --", github_id: '', role: 1 });
    const logs = await server.ctx.storage.db.selectFrom('logs').selectAll().where('user_id', '=', regular.userId).execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ type: 3, content: '管理员将用户额度从 ＄0.000000 额度 修改为 ＄2.000000 额度', username: 'user1' });
    await admin.client.put('/api/user/', { id: regular.userId, quota: 1_000_000 });
    expect(await server.ctx.storage.db.selectFrom('logs').select('id').where('user_id', '=', regular.userId).execute()).toHaveLength(1);
  });

  it('changes a user password through the editor', async () => {
    const target = await createUserAndLogin(server, root.client, 'pwuser');
    expect((await admin.client.put('/api/user/', { id: target.userId, password: '' })).status).toBe(200);
    expect((await server.client().post('/api/user/login', { username: 'pwuser', password: target.password })).status).toBe(200);
    expect((await admin.client.put('/api/user/', { id: target.userId, password: 'brand-new-pw' })).status).toBe(200);
    expect((await server.client().post('/api/user/login', { username: 'pwuser', password: 'brand-new-pw' })).status).toBe(200);
  });

  it.each([
    [{ id: 0 }, 400],
    [{ id: 'abc' }, 400],
    [{ display_name: 'no id' }, 400],
    [{ id: 999999 }, 404],
    [{ id: -1 }, 400],
  ])('refuses update %j with %i', async (body, status) => {
    const res = await admin.client.put('/api/user/', body);
    expect(res.status).toBe(status);
    expect(res.body.success).toBe(false);
  });

  it('refuses update values with the right messages', async () => {
    const id = regular.userId;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ id, quota: 1.5 }, '额度必须是非负整数'],
      [{ id, quota: -1 }, '额度必须是非负整数'],
      [{ id, password: 'short' }, '密码长度不得小于 8 位！'],
      [{ id, username: 'x'.repeat(13) }, '用户名长度不得超过 12 位！'],
      [{ id, email: 'bad' }, '邮箱地址格式不正确'],
      [{ id, group: 'no-such-group' }, '分组不存在'],
    ];
    for (const [body, message] of cases) {
      const res = await admin.client.put('/api/user/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toBe(message);
    }
    expect((await admin.client.put('/api/user/', { id, quota: '5' })).status).toBe(400);
    expect((await admin.client.put('/api/user/', { id, username: 'admin2' })).status).toBe(409);
  });

  it('lets admins edit only users of a lower role', async () => {
    for (const id of [otherAdmin.userId, root.userId, admin.userId]) {
      const res = await admin.client.put('/api/user/', { id, display_name: 'hijack' });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('无权更新同权限等级或更高权限等级的用户信息');
    }
    expect((await root.client.put('/api/user/', { id: otherAdmin.userId, display_name: 'Second' })).status).toBe(200);
    // The super admin may edit their own row (it is the only way to give themself quota).
    expect((await root.client.put('/api/user/', { id: root.userId, quota: 5000 })).status).toBe(200);
    expect((await root.client.get('/api/user/self')).body.data.quota).toBe(5000);
  });

  it('manages users: enable/disable/promote/demote/delete with the role rules', async () => {
    const target = await createUserAndLogin(server, root.client, 'managed');
    const manage = (client: LoggedIn, action: string, id = target.userId) => client.client.post('/api/user/manage', { id, action });

    expect((await manage(admin, 'disable')).body).toEqual({ success: true, message: '操作成功完成！', data: { status: 2, role: 1 } });
    expect((await manage(admin, 'enable')).body.data).toEqual({ status: 1, role: 1 });
    const adminPromotes = await manage(admin, 'promote');
    expect(adminPromotes.status).toBe(403);
    expect(adminPromotes.body.message).toBe('普通管理员用户无法提升其他用户为管理员');
    const demoteRegular = await manage(root, 'demote');
    expect(demoteRegular.status).toBe(400);
    expect(demoteRegular.body.message).toBe('该用户已经是普通用户');
    expect((await manage(root, 'promote')).body.data).toEqual({ status: 1, role: 10 });
    const promoteAgain = await manage(root, 'promote');
    expect(promoteAgain.body.message).toBe('该用户已经是管理员');
    for (const action of ['disable', 'enable', 'demote', 'delete']) {
      const res = await manage(admin, action);
      expect(res.status, action).toBe(403);
      expect(res.body.message).toBe('无权更新同权限等级或更高权限等级的用户信息');
    }
    expect((await manage(root, 'demote')).body.data).toEqual({ status: 1, role: 1 });
    expect((await manage(admin, 'delete')).body.data).toEqual({ status: 1, role: 1 });
    for (const action of ['enable', 'disable', 'promote', 'demote', 'delete']) {
      const res = await manage(root, action);
      expect(res.status, action).toBe(400);
      expect(res.body.message).toBe('该用户已注销，无法操作');
    }
    expect((await root.client.put('/api/user/', { id: target.userId, display_name: 'back' })).status).toBe(400);
  });

  it('never disables, deletes or demotes the super admin, nor lets admins act on their own rank', async () => {
    const expected = { disable: '无法禁用超级管理员用户', delete: '无法删除超级管理员用户', demote: '无法降级超级管理员用户' } as const;
    for (const [action, message] of Object.entries(expected)) {
      for (const actor of [root, admin]) {
        const res = await actor.client.post('/api/user/manage', { id: root.userId, action });
        expect(res.status).toBe(403);
        expect(res.body.message).toBe(message);
      }
    }
    expect((await admin.client.post('/api/user/manage', { id: admin.userId, action: 'demote' })).status).toBe(403);
    expect((await admin.client.post('/api/user/manage', { id: otherAdmin.userId, action: 'disable' })).status).toBe(403);
    const rootRow = await server.ctx.storage.db
      .selectFrom('users')
      .select(['role', 'status', 'deleted_at'])
      .where('id', '=', root.userId)
      .executeTakeFirstOrThrow();
    expect(rootRow).toEqual({ role: 100, status: 1, deleted_at: null });
  });

  it('answers bad manage input with 4xx envelopes', async () => {
    const cases: Array<[unknown, number]> = [
      [{ id: regular.userId, action: 'explode' }, 400],
      [{ id: regular.userId }, 400],
      [{ id: '1', action: 'disable' }, 400],
      [{ id: 999999, action: 'disable' }, 404],
      [[], 400],
      ['just a string', 400],
    ];
    for (const [body, status] of cases) {
      const res = await admin.client.post('/api/user/manage', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.success).toBe(false);
    }
    const malformed = await admin.client.post('/api/user/manage', undefined, { raw: "{'id': 1}" });
    expect(malformed.status).toBe(400);
    const huge = await admin.client.post('/api/user/', undefined, {
      raw: JSON.stringify({ username: 'big', password: 'p'.repeat(10 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.success).toBe(false);
    const wrongType = await admin.client.post('/api/user/manage', undefined, {
      raw: 'id=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(wrongType.status).toBe(415);
  });

  it('lists group names for admins', async () => {
    const res = await admin.client.get('/api/group/');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(['default', 'vip', 'svip']);
  });

  it('never returns a password or its hash in any response of this suite', async () => {
    const hashes = (await server.ctx.storage.db.selectFrom('users').select('password').execute()).map((row) => row.password);
    expect(bodies.length).toBeGreaterThan(50);
    for (const body of bodies) {
      expect(body).not.toMatch(/"password"/);
      expect(body).not.toMatch(/\$2[aby]\$10\$/);
      for (const hash of hashes) expect(body).not.toContain(hash);
    }
  });
});
