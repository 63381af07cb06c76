import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, login, rootPassword, rootUsername, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('login, logout and sessions', () => {
  let server: TestServer;
  let root: LoggedIn;
  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server.stop());

  it('signs in with username and sets a strict 30-day HttpOnly session cookie', async () => {
    const client = server.client();
    const res = await client.post('/api/user/login', { username: 'root', password: rootPassword });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: '登录成功！' });
    expect(res.body.data).toEqual({ id: root.userId, username: 'root', display_name: 'Root User', role: 100, status: 1, group: 'default' });
    const cookie = res.headers.getSetCookie().find((line) => line.startsWith('session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(cookie).not.toMatch(/Secure/i);
    client.userId = res.body.data.id;
    expect((await client.get('/api/user/self')).body.data.username).toBe('root');
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const proxied = await startTestServer({ database: server.database, env: { TRUST_PROXY: '1' } });
    try {
      const res = await proxied
        .client()
        .post('/api/user/login', { username: 'root', password: rootPassword }, { headers: { 'X-Forwarded-Proto': 'https' } });
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().find((line) => line.startsWith('session='))).toMatch(/Secure/i);
    } finally {
      await proxied.stop();
    }
  });

  it('signs in with the email instead of the username', async () => {
    const bob = await createUserAndLogin(server, root.client, 'bob');
    await root.client.put('/api/user/', { id: bob.userId, email: 'bob@example.com' });
    const res = await server.client().post('/api/user/login', { username: 'bob@example.com', password: bob.password });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(bob.userId);
    // A username spelled like someone's email signs in as that username, not as the email owner.
    const lookalike = await root.client.post('/api/user/', { username: 'b@x.io', password: 'lookalike-1' });
    await root.client.put('/api/user/', { id: bob.userId, email: 'b@x.io' });
    const byName = await server.client().post('/api/user/login', { username: 'b@x.io', password: 'lookalike-1' });
    expect(byName.body.data.id).toBe(lookalike.body.data.id);
    expect((await server.client().post('/api/user/login', { username: 'b@x.io', password: bob.password })).status).toBe(400);
  });

  it.each([
    [{}, '请输入用户名和密码！'],
    [{ username: 'root' }, '请输入用户名和密码！'],
    [{ password: 'x' }, '请输入用户名和密码！'],
    [{ username: '', password: '' }, '请输入用户名和密码！'],
    [{ username: 'root', password: 'wrong-password' }, '用户名或密码错误，或用户已被封禁'],
    [{ username: 'nobody', password: 'whatever1' }, '用户名或密码错误，或用户已被封禁'],
    [{ username: "' OR 1=1 --", password: "' OR '1'='1" }, '用户名或密码错误，或用户已被封禁'],
  ])('refuses %j', async (body, message) => {
    const client = server.client();
    const res = await client.post('/api/user/login', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
    expect(client.cookie).toBe('');
  });

  it('answers wrong types with 400', async () => {
    const res = await server.client().post('/api/user/login', { username: ['root'], password: 1 });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it('refuses a disabled user and honours PasswordLoginEnabled', async () => {
    const carol = await createUserAndLogin(server, root.client, 'carol');
    await root.client.post('/api/user/manage', { id: carol.userId, action: 'disable' });
    const disabled = await server.client().post('/api/user/login', { username: 'carol', password: carol.password });
    expect(disabled.status).toBe(403);
    expect(disabled.body).toEqual({ success: false, message: '用户已被封禁', data: null });

    await root.client.put('/api/option/', { key: 'PasswordLoginEnabled', value: false });
    const closed = await server.client().post('/api/user/login', { username: 'root', password: rootPassword });
    expect(closed.status).toBe(403);
    expect(closed.body.message).toBe('管理员关闭了密码登录');
    await root.client.put('/api/option/', { key: 'PasswordLoginEnabled', value: 'true' });
    expect((await server.client().post('/api/user/login', { username: 'root', password: rootPassword })).status).toBe(200);
  });

  it('logs out by clearing the cookie and ending the session', async () => {
    const erin = await createUserAndLogin(server, root.client, 'erin');
    const { client } = await login(server.client(), 'erin', erin.password);
    const res = await client.get('/api/user/logout');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.headers.getSetCookie().find((line) => line.startsWith('session='))).toMatch(/session=;/);
    expect(client.cookie).toBe('');
    expect((await client.get('/api/user/self')).status).toBe(401);
    // Logout ends every session of the user (one per-user session version).
    expect((await erin.client.get('/api/user/self')).status).toBe(401);
  });

  it('requires a session (401) and a matching New-Api-User header (401)', async () => {
    const anonymous = await server.client().get('/api/user/self');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.success).toBe(false);
    const { client } = await login(server.client(), 'root', rootPassword);
    const missing = await client.get('/api/user/self', { headers: { 'New-Api-User': '' } });
    expect(missing.status).toBe(401);
    const mismatched = await client.get('/api/user/self', { headers: { 'New-Api-User': String(root.userId + 1) } });
    expect(mismatched.status).toBe(401);
    expect(mismatched.body.message).toContain('New-Api-User');
    const forged = server.client();
    forged.cookie = `session=${root.userId}.9999999999.forged`;
    forged.userId = root.userId;
    expect((await forged.get('/api/user/self')).status).toBe(401);
  });

  it('stops sessions and access tokens of disabled and deleted users at once', async () => {
    const dave = await createUserAndLogin(server, root.client, 'dave');
    const token = (await dave.client.get('/api/user/token')).body.data as string;
    const byToken = server.client();
    byToken.userId = dave.userId;
    byToken.headers.Authorization = `Bearer ${token}`;
    expect((await byToken.get('/api/user/self')).status).toBe(200);

    await root.client.post('/api/user/manage', { id: dave.userId, action: 'disable' });
    // Disabling ends the session (401: sign in again); the access token is refused as banned.
    expect((await dave.client.get('/api/user/self')).status).toBe(401);
    expect((await byToken.get('/api/user/self')).status).toBe(403);
    await root.client.post('/api/user/manage', { id: dave.userId, action: 'enable' });
    expect((await dave.client.get('/api/user/self')).status).toBe(401);
    await login(dave.client, 'dave', dave.password);
    expect((await dave.client.get('/api/user/self')).status).toBe(200);
    expect((await byToken.get('/api/user/self')).status).toBe(200);

    await root.client.post('/api/user/manage', { id: dave.userId, action: 'delete' });
    expect((await dave.client.get('/api/user/self')).status).toBe(401);
    expect((await byToken.get('/api/user/self')).status).toBe(401);
    expect((await server.client().post('/api/user/login', { username: 'dave', password: dave.password })).status).toBe(400);
  });
});

describe('registration', () => {
  let server: TestServer;
  let root: LoggedIn;
  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server.stop());

  const setOption = async (key: string, value: string | number | boolean) => {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, res.text).toBe(200);
  };

  it('registers a regular user with QuotaForNewUser who can then sign in', async () => {
    await setOption('QuotaForNewUser', 1000);
    const res = await server.client().post('/api/user/register', { username: 'erin', password: 'erin-pass', password2: 'erin-pass' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: '注册成功！', data: null });
    const erin = await login(server.client(), 'erin', 'erin-pass');
    expect((await erin.client.get('/api/user/self')).body.data).toMatchObject({
      role: 1,
      status: 1,
      quota: 1000,
      group: 'default',
      display_name: 'erin',
    });
  });

  it.each([
    [{ password: 'abcdefgh' }, '用户名和密码不能为空！'],
    [{ username: 'frank' }, '用户名和密码不能为空！'],
    [{ username: 'a'.repeat(13), password: 'abcdefgh' }, '用户名长度不得超过 12 位！'],
    [{ username: 'frank', password: 'abc' }, '密码长度不得小于 8 位！'],
    [{ username: 'frank', password: 'a'.repeat(21) }, '密码长度不得大于 20 位！'],
    [{ username: 'frank', password: 'abcdefgh', password2: 'abcdefgX' }, '两次输入的密码不一致'],
    [{ username: 'frank', password: 'abcdefgh', email: 'not-an-email' }, '邮箱地址格式不正确'],
  ])('refuses %j', async (body, message) => {
    const res = await server.client().post('/api/user/register', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
  });

  it('refuses a taken username (409) and wrong types (400)', async () => {
    const taken = await server.client().post('/api/user/register', { username: 'root', password: 'abcdefgh' });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe('用户名已存在，或已注销');
    expect((await server.client().post('/api/user/register', { username: 12, password: 'abcdefgh' })).status).toBe(400);
  });

  it('stores SQL-like usernames literally', async () => {
    const username = "' OR 1=1 --";
    expect((await server.client().post('/api/user/register', { username, password: 'abcdefgh' })).status).toBe(200);
    const row = await server.ctx.storage.db.selectFrom('users').select('username').where('username', '=', username).executeTakeFirst();
    expect(row?.username).toBe(username);
    expect((await login(server.client(), username, 'abcdefgh')).userId).toBeGreaterThan(0);
  });

  it('credits inviter and invitee for an invite code', async () => {
    await setOption('QuotaForInviter', 300);
    await setOption('QuotaForInvitee', 200);
    const inviter = await createUserAndLogin(server, root.client, 'inviter');
    const code = (await inviter.client.get('/api/user/aff')).body.data as string;
    const res = await server.client().post('/api/user/register', { username: 'invitee', password: 'abcdefgh', aff_code: code });
    expect(res.status).toBe(200);
    const invitee = await login(server.client(), 'invitee', 'abcdefgh');
    expect((await invitee.client.get('/api/user/self')).body.data).toMatchObject({ quota: 1200, inviter_id: inviter.userId });
    expect((await inviter.client.get('/api/user/self')).body.data).toMatchObject({
      aff_count: 1,
      aff_quota: 300,
      aff_history_quota: 300,
      quota: 1000,
    });
    const unknown = await server.client().post('/api/user/register', { username: 'nocode', password: 'abcdefgh', aff_code: 'zzzzzz' });
    expect(unknown.status).toBe(200);
    const nocode = await login(server.client(), 'nocode', 'abcdefgh');
    expect((await nocode.client.get('/api/user/self')).body.data).toMatchObject({ quota: 1000, inviter_id: 0 });
  });

  it('gives a user whose stored invite code is empty (a migrated row) a new one', async () => {
    const user = await createUserAndLogin(server, root.client, 'emptyaff');
    await server.ctx.storage.db.updateTable('users').set({ aff_code: '' }).where('id', '=', user.userId).execute();
    const res = await user.client.get('/api/user/aff');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatch(/^[A-Za-z0-9]{4,12}$/);
    expect((await user.client.get('/api/user/aff')).body.data).toBe(res.body.data);
  });

  it('requires email and code when email verification is on, and stores nothing', async () => {
    await setOption('SMTPServer', 'smtp.example.com');
    await setOption('EmailVerificationEnabled', true);
    try {
      const noEmail = await server.client().post('/api/user/register', { username: 'gina', password: 'abcdefgh' });
      expect(noEmail.body).toEqual({ success: false, message: '请输入邮箱！', data: null });
      const noCode = await server
        .client()
        .post('/api/user/register', { username: 'gina', password: 'abcdefgh', email: 'gina@example.com' });
      expect(noCode.body).toEqual({ success: false, message: '请输入邮箱验证码！', data: null });
      const wrong = await server
        .client()
        .post('/api/user/register', { username: 'gina', password: 'abcdefgh', email: 'gina@example.com', verification_code: '123456' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toBe('验证码错误或已过期');
      expect(await server.ctx.storage.db.selectFrom('users').select('id').where('username', '=', 'gina').execute()).toEqual([]);
    } finally {
      await setOption('EmailVerificationEnabled', false);
    }
  });

  it('honours RegisterEnabled and PasswordRegisterEnabled', async () => {
    await setOption('RegisterEnabled', false);
    const closed = await server.client().post('/api/user/register', { username: 'hank', password: 'abcdefgh' });
    expect(closed.status).toBe(403);
    expect(closed.body.message).toBe('管理员关闭了新用户注册');
    await setOption('RegisterEnabled', true);
    await setOption('PasswordRegisterEnabled', false);
    const noPassword = await server.client().post('/api/user/register', { username: 'hank', password: 'abcdefgh' });
    expect(noPassword.status).toBe(403);
    expect(noPassword.body.message).toBe('管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册');
    await setOption('PasswordRegisterEnabled', true);
    expect((await server.client().post('/api/user/register', { username: 'hank', password: 'abcdefgh' })).status).toBe(200);
  });
});

describe('failed sign-ins are limited per IP and per account; successful ones are not counted', () => {
  const redisUrl = process.env.TEST_REDIS_URL;
  const backends = [
    { name: 'memory', enabled: true, env: {} as Record<string, string> },
    {
      name: 'redis, two instances',
      enabled: Boolean(redisUrl),
      env: { REDIS_CONN_STRING: redisUrl ?? '', REDIS_KEY_PREFIX: `mg-signin-${Date.now().toString(36)}:` },
    },
  ];

  describe.each(backends)('on the $name cache', ({ enabled, env }) => {
    let first: TestServer;
    let second: TestServer;
    beforeAll(async () => {
      if (!enabled) return;
      first = await startTestServer({ env: { ...env, CRITICAL_RATE_LIMIT: '3', CRITICAL_RATE_LIMIT_DURATION: '600' } });
      await setupRootAndLogin(first);
      // With Redis a second instance on the same database shares the counts; in memory it is the same server.
      second = env.REDIS_CONN_STRING
        ? await startTestServer({
            env: { ...env, CRITICAL_RATE_LIMIT: '3', CRITICAL_RATE_LIMIT_DURATION: '600' },
            database: first.database,
          })
        : first;
    });
    afterAll(async () => {
      if (second && second !== first) await second.stop();
      await first?.stop();
    });

    it.skipIf(!enabled)('lets an operator sign in 30 times in a row', async () => {
      for (let i = 0; i < 30; i++) {
        const res = await (i % 2 ? second : first).client().post('/api/user/login', { username: rootUsername, password: rootPassword });
        expect(res.status, `sign-in ${i + 1}`).toBe(200);
      }
    });

    it.skipIf(!enabled)('locks an account after CRITICAL_RATE_LIMIT failures, on every instance, with Retry-After', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (await (i % 2 ? second : first).client().post('/api/user/login', { username: 'victim', password: 'wrong-pass' })).status,
        );
      expect(statuses).toEqual([400, 400, 400]);
      const locked = await second.client().post('/api/user/login', { username: 'VICTIM', password: 'wrong-pass' });
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual({ success: false, message: '登录失败次数过多，请稍后再试', data: null });
      expect(locked.headers.get('retry-after')).toBe('600');
    });

    it.skipIf(!enabled)('locks the IP after CRITICAL_RATE_LIMIT failures across accounts, even for a right password', async () => {
      // The victim lock above already counted 3 failures from this IP (all tests come from 127.0.0.1).
      const res = await first.client().post('/api/user/login', { username: rootUsername, password: rootPassword });
      expect(res.status).toBe(429);
      expect(await first.ctx.cache.count('rl:signin-failures:ip:127.0.0.1')).toBeGreaterThanOrEqual(3);
    });
  });

  it('still limits registration per IP with the critical rule', async () => {
    const server = await startTestServer({ env: { CRITICAL_RATE_LIMIT: '3' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await server.client().post('/api/user/register', { username: `u${i}`, password: 'short' })).status);
      expect(statuses.slice(0, 3).every((status) => status !== 429)).toBe(true);
      expect(statuses[3]).toBe(429);
    } finally {
      await server.stop();
    }
  });
});
