import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, login, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('self service', () => {
  let server: TestServer;
  let root: LoggedIn;
  let ivy: LoggedIn & { password: string };
  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
    ivy = await createUserAndLogin(server, root.client, 'ivy');
  });
  afterAll(async () => server.stop());

  it('reads the own row without password, access token or admin remark', async () => {
    await root.client.put('/api/user/', { id: ivy.userId, remark: 'vip customer' });
    const res = await ivy.client.get('/api/user/self');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: ivy.userId, username: 'ivy', role: 1, status: 1, group: 'default', quota: 0 });
    expect(res.body.data).not.toHaveProperty('password');
    expect(res.body.data).not.toHaveProperty('access_token');
    expect(res.body.data).not.toHaveProperty('remark');
  });

  it('updates username and display name', async () => {
    const res = await ivy.client.put('/api/user/self', { username: 'ivy2', display_name: 'Ivy Two' });
    expect(res.status).toBe(200);
    expect((await ivy.client.get('/api/user/self')).body.data).toMatchObject({ username: 'ivy2', display_name: 'Ivy Two' });
    await ivy.client.put('/api/user/self', { username: 'ivy' });
  });

  it.each([
    [{ username: '' }, '用户名和密码不能为空！'],
    [{ username: 'x'.repeat(13) }, '用户名长度不得超过 12 位！'],
    [{ password: 'short', original_password: 'ivy-pass' }, '密码长度不得小于 8 位！'],
    [{ password: 'y'.repeat(21), original_password: 'ivy-pass' }, '密码长度不得大于 20 位！'],
    [{ password: 'new-pass-1' }, '请输入原密码'],
    [{ password: 'new-pass-1', original_password: 'wrong-pass' }, '原密码错误'],
  ])('refuses self update %j', async (body, message) => {
    const res = await ivy.client.put('/api/user/self', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
  });

  it('refuses a taken username with 409 and wrong types with 400', async () => {
    expect((await ivy.client.put('/api/user/self', { username: 'root' })).status).toBe(409);
    expect((await ivy.client.put('/api/user/self', { display_name: 42 })).status).toBe(400);
    expect((await ivy.client.put('/api/user/self', undefined, { raw: 'not json' })).status).toBe(400);
  });

  it('changes the password when the original one is given', async () => {
    const res = await ivy.client.put('/api/user/self', { password: 'ivy-new-pass', original_password: ivy.password });
    expect(res.status).toBe(200);
    expect((await server.client().post('/api/user/login', { username: 'ivy', password: ivy.password })).status).toBe(400);
    await login(server.client(), 'ivy', 'ivy-new-pass');
    ivy.password = 'ivy-new-pass';
  });

  it('issues a new 32-character access token each time, usable as Authorization', async () => {
    const first = (await ivy.client.get('/api/user/token')).body.data as string;
    const second = (await ivy.client.get('/api/user/token')).body.data as string;
    expect(first).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(second).not.toBe(first);
    const byToken = server.client();
    byToken.userId = ivy.userId;
    byToken.headers.Authorization = second;
    expect((await byToken.get('/api/user/self')).body.data.username).toBe('ivy');
    byToken.headers.Authorization = first;
    expect((await byToken.get('/api/user/self')).status).toBe(401);
  });

  it('creates the invite code once', async () => {
    const first = await ivy.client.get('/api/user/aff');
    expect(first.body.data).toMatch(/^[A-Za-z0-9]{4,}$/);
    expect((await ivy.client.get('/api/user/aff')).body.data).toBe(first.body.data);
    expect((await ivy.client.get('/api/user/self')).body.data.aff_code).toBe(first.body.data);
  });

  it('transfers invite earnings atomically with a minimum of one quota unit', async () => {
    await server.ctx.storage.db.updateTable('users').set({ aff_quota: 1_200_000 }).where('id', '=', ivy.userId).execute();
    const tooSmall = await ivy.client.post('/api/user/aff_transfer', { quota: 1000 });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.message).toBe('划转金额最低为＄1.000000 额度');
    const tooMuch = await ivy.client.post('/api/user/aff_transfer', { quota: 2_000_000 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.message).toBe('邀请额度不足！');
    expect((await ivy.client.post('/api/user/aff_transfer', { quota: 'lots' })).status).toBe(400);
    expect((await ivy.client.post('/api/user/aff_transfer', { quota: 1.5 })).status).toBe(400);

    const transfers = await Promise.all([
      ivy.client.post('/api/user/aff_transfer', { quota: 500_000 }),
      ivy.client.post('/api/user/aff_transfer', { quota: 500_000 }),
      ivy.client.post('/api/user/aff_transfer', { quota: 500_000 }),
    ]);
    expect(transfers.map((res) => res.status).sort()).toEqual([200, 200, 400]);
    expect((await ivy.client.get('/api/user/self')).body.data).toMatchObject({ aff_quota: 200_000, quota: 1_000_000 });
  });

  it('stores notification settings in users.setting', async () => {
    const setting = {
      notify_type: 'webhook',
      quota_warning_threshold: 500000,
      webhook_url: 'https://hooks.example.com/x',
      webhook_secret: 's3cret',
      notification_email: 'ivy@example.com',
      accept_unset_model_ratio_model: false,
    };
    const res = await ivy.client.put('/api/user/setting', setting);
    expect(res.status).toBe(200);
    expect(JSON.parse((await ivy.client.get('/api/user/self')).body.data.setting)).toEqual(setting);
    // An admin sees the settings but never the owner's webhook secret.
    const adminView = (await root.client.get(`/api/user/${ivy.userId}`)).body.data;
    expect(JSON.parse(adminView.setting)).toEqual({ ...setting, webhook_secret: undefined });
    const listed = (await root.client.get('/api/user/search?keyword=ivy')).body.data.items;
    expect(listed.map((user: { setting: string }) => user.setting).join()).not.toContain('s3cret');
  });

  it.each([
    [{ notify_type: 'webhook', webhook_url: 'http://insecure.example.com' }, 'Webhook 地址必须以 https:// 开头'],
    [{ notify_type: 'webhook' }, '请填写 Webhook 地址'],
    [{ notification_email: 'nope' }, '通知邮箱格式不正确'],
    // The server calls the webhook: under the SSRF protection (on by default) only public addresses and the allowed ports.
    [{ notify_type: 'webhook', webhook_url: 'https://127.0.0.1/hook' }, '回调地址不能指向内网、本机或保留地址'],
    [{ notify_type: 'webhook', webhook_url: 'https://169.254.169.254/latest/meta-data/' }, '回调地址不能指向内网、本机或保留地址'],
    [{ notify_type: 'webhook', webhook_url: 'https://[::ffff:10.0.0.7]/hook' }, '回调地址不能指向内网、本机或保留地址'],
    [{ notify_type: 'webhook', webhook_url: 'https://2130706433/hook' }, '回调地址不能指向内网、本机或保留地址'],
    [{ notify_type: 'webhook', webhook_url: 'https://hooks.example.com:6379/x' }, '回调地址的端口 6379 不在允许的端口列表中'],
    [{ notify_type: 'webhook', webhook_url: 'https://me:pw@hooks.example.com/x' }, '回调地址不能包含用户名或密码'],
  ])('refuses setting %j', async (body, message) => {
    const res = await ivy.client.put('/api/user/setting', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
  });

  it('takes a private webhook address once the root allows private addresses and its port', async () => {
    const hook = { notify_type: 'webhook', webhook_url: 'https://10.1.2.3:9443/hook' };
    expect((await ivy.client.put('/api/user/setting', hook)).body.message).toBe('回调地址的端口 9443 不在允许的端口列表中');
    expect(
      (await root.client.put('/api/option/', { key: 'fetch_setting.allowed_ports', value: '["443", "9000-9999"]' })).body.success,
    ).toBe(true);
    expect((await ivy.client.put('/api/user/setting', hook)).body.message).toBe('回调地址不能指向内网、本机或保留地址');
    expect((await root.client.put('/api/option/', { key: 'fetch_setting.allow_private_ip', value: 'true' })).body.success).toBe(true);
    try {
      expect((await ivy.client.put('/api/user/setting', hook)).body).toMatchObject({ success: true });
      expect((await root.client.put('/api/option/', { key: 'fetch_setting.allowed_ports', value: '["0"]' })).status).toBe(400);
      expect((await root.client.put('/api/option/', { key: 'fetch_setting.allowed_ports', value: '["443", "9000-80"]' })).status).toBe(400);
    } finally {
      await root.client.put('/api/option/', { key: 'fetch_setting.allow_private_ip', value: 'false' });
      await root.client.put('/api/option/', { key: 'fetch_setting.allowed_ports', value: '["80", "443", "8080", "8443"]' });
    }
  });

  it("holds webhook addresses to the root's domain and address lists", async () => {
    const lists = [
      { key: 'fetch_setting.domain_filter_mode', value: 'true' },
      { key: 'fetch_setting.domain_list', value: '["*.hooks.example.com"]' },
      { key: 'fetch_setting.ip_list', value: '["8.8.4.0/24"]' },
    ];
    for (const option of lists) expect((await root.client.put('/api/option/', option)).body.success).toBe(true);
    try {
      const save = (url: string) => ivy.client.put('/api/user/setting', { notify_type: 'webhook', webhook_url: url });
      expect((await save('https://a.hooks.example.com/x')).body).toMatchObject({ success: true });
      expect((await save('https://hooks.example.org/x')).body).toEqual({
        success: false,
        message: '回调地址的域名不在允许列表中',
        data: null,
      });
      expect((await save('https://8.8.4.4/x')).body).toEqual({ success: false, message: '回调地址的 IP 在禁止列表中', data: null });
      expect((await save('https://8.8.8.8/x')).body).toMatchObject({ success: true });
      // The reason reaches an English caller in English.
      const english = await ivy.client.put(
        '/api/user/setting',
        { notify_type: 'webhook', webhook_url: 'https://hooks.example.org/x' },
        { headers: { 'accept-language': 'en' } },
      );
      expect(english.body.message).toBe('The domain of the callback address is not on the allow list');
    } finally {
      await root.client.put('/api/option/', { key: 'fetch_setting.domain_filter_mode', value: 'false' });
      await root.client.put('/api/option/', { key: 'fetch_setting.domain_list', value: '[]' });
      await root.client.put('/api/option/', { key: 'fetch_setting.ip_list', value: '[]' });
    }
  });

  it('refuses settings of the wrong type or range', async () => {
    expect((await ivy.client.put('/api/user/setting', { notify_type: 'sms' })).status).toBe(400);
    expect((await ivy.client.put('/api/user/setting', { quota_warning_threshold: -1 })).status).toBe(400);
    expect((await ivy.client.put('/api/user/setting', { accept_unset_model_ratio_model: 'yes' })).status).toBe(400);
  });

  it('lists usable groups with ratios, including the own group', async () => {
    await server.ctx.storage.db.updateTable('users').set({ group: 'special' }).where('id', '=', ivy.userId).execute();
    await root.client.put('/api/option/', { key: 'GroupRatio', value: JSON.stringify({ default: 1, vip: 1.5, special: 0.5 }) });
    const res = await ivy.client.get('/api/user/self/groups');
    expect(res.body.data).toEqual({
      default: { desc: '默认分组', ratio: 1 },
      vip: { desc: 'vip分组', ratio: 1.5 },
      special: { desc: '用户分组', ratio: 0.5 },
    });
    await server.ctx.storage.db.updateTable('users').set({ group: 'default' }).where('id', '=', ivy.userId).execute();
  });

  it('lists the distinct models of enabled abilities of the own group', async () => {
    await server.ctx.storage.db
      .insertInto('abilities')
      .values([
        { group: 'default', model: 'gpt-4o', channel_id: 1, enabled: 1 },
        { group: 'default', model: 'gpt-4o', channel_id: 2, enabled: 1 },
        { group: 'default', model: 'claude-3', channel_id: 2, enabled: 1 },
        { group: 'default', model: 'disabled-model', channel_id: 3, enabled: 0 },
        { group: 'vip', model: 'vip-only', channel_id: 1, enabled: 1 },
      ])
      .execute();
    expect((await ivy.client.get('/api/user/models')).body.data).toEqual(['claude-3', 'gpt-4o']);
  });

  it('deletes the own account (soft) and ends the session; root cannot delete itself', async () => {
    const rootDelete = await root.client.delete('/api/user/self');
    expect(rootDelete.status).toBe(403);
    expect(rootDelete.body.message).toBe('不能删除超级管理员账户');
    const jack = await createUserAndLogin(server, root.client, 'jack');
    const sessionBeforeDelete = jack.client.cookie;
    const res = await jack.client.delete('/api/user/self');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('账户已删除！');
    const row = await server.ctx.storage.db
      .selectFrom('users')
      .select('deleted_at')
      .where('id', '=', jack.userId)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeGreaterThan(0);
    expect(jack.client.cookie).toBe('');
    jack.client.cookie = sessionBeforeDelete;
    expect((await jack.client.get('/api/user/self')).status).toBe(401);
  });

  it('answers 401 on every self route without a session', async () => {
    const anonymous = server.client();
    for (const [method, path] of [
      ['GET', '/api/user/self'],
      ['PUT', '/api/user/self'],
      ['DELETE', '/api/user/self'],
      ['GET', '/api/user/token'],
      ['GET', '/api/user/aff'],
      ['POST', '/api/user/aff_transfer'],
      ['PUT', '/api/user/setting'],
      ['GET', '/api/user/self/groups'],
      ['GET', '/api/user/models'],
    ] as const) {
      const res = await anonymous.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.success).toBe(false);
    }
  });
});
