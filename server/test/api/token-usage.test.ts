import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayToken, createRelayUser, settleBus } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * Self-service lookups authenticated by the API key alone, as new-api serves them: GET /api/usage/token
 * (balance and usage), GET /api/log/token (the token's logs), and the OpenAI-style
 * /dashboard/billing/subscription and /usage beside them.
 */
describe.each(storageKinds())('token self-service lookups on %s', (kind) => {
  let server: TestServer;
  let userId: number;
  let limited: { id: number; key: string; apiKey: string };
  let unlimited: { id: number; key: string; apiKey: string };
  let other: { id: number; key: string; apiKey: string };
  const now = Math.floor(Date.now() / 1000);
  const expiry = now + 86_400;

  const get = async (path: string, authorization?: string) => {
    // Chinese, as the spec's messages are checked verbatim (without Accept-Language the server answers in English).
    const res = await fetch(`${server.url}${path}`, {
      headers: { 'accept-language': 'zh-CN', ...(authorization === undefined ? {} : { authorization }) },
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const setUsed = async (tokenId: number, used: number) => {
    await server.ctx.storage.db.updateTable('tokens').set({ used_quota: used }).where('id', '=', tokenId).execute();
    await server.ctx.bus.publish('tokens', String(tokenId));
    await settleBus(server.ctx);
  };

  beforeAll(async () => {
    server = await startTestServer({ kind });
    userId = await createRelayUser(server.ctx, { quota: 9_000_000 });
    limited = await createRelayToken(server.ctx, userId, {
      name: 'script',
      remainQuota: 750_000,
      expiredTime: expiry,
      modelLimits: ['gpt-4o-mini', 'gpt-4o'],
    });
    unlimited = await createRelayToken(server.ctx, userId, { name: 'open', isUnlimited: true });
    other = await createRelayToken(server.ctx, await createRelayUser(server.ctx), { name: 'someone else' });
    await setUsed(limited.id, 250_000);
    const blank = {
      content: '',
      token_name: '',
      model_name: '',
      quota: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      channel_id: 7,
      group: 'default',
      other: '',
      use_time: 1,
      is_stream: 0,
      ip: '',
    };
    const rows = [
      {
        ...blank,
        user_id: userId,
        username: 'u',
        created_at: now - 30,
        type: 2,
        token_id: limited.id,
        token_name: 'script',
        model_name: 'gpt-4o-mini',
        quota: 100,
        content: '模型倍率 1，补全倍率 2，分组倍率 1',
        other: JSON.stringify({ model_ratio: 1, admin_info: { use_channel: ['7'] } }),
      },
      {
        ...blank,
        user_id: userId,
        username: 'u',
        created_at: now - 20,
        type: 2,
        token_id: unlimited.id,
        token_name: 'open',
        model_name: 'gpt-4o',
        quota: 300,
      },
      {
        ...blank,
        user_id: userId,
        username: 'u',
        created_at: now - 10,
        type: 6,
        token_id: limited.id,
        token_name: 'script',
        quota: 50,
        content: 'suno 任务 t1（MUSIC）失败，退还额度：任务超时',
      },
      {
        ...blank,
        user_id: userId,
        username: 'u',
        created_at: now - 5,
        type: 2,
        token_id: limited.id,
        token_name: 'script',
        model_name: 'gpt-4o',
        quota: 200,
      },
    ];
    await server.ctx.storage.db.insertInto('logs').values(rows).execute();
  });
  afterAll(async () => server?.stop());

  it('GET /api/usage/token answers the token\u2019s balance and usage in new-api\u2019s shape', async () => {
    const res = await get('/api/usage/token', `Bearer ${limited.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      code: true,
      message: 'ok',
      data: {
        object: 'token_usage',
        name: 'script',
        total_granted: 1_000_000,
        total_used: 250_000,
        total_available: 750_000,
        unlimited_quota: false,
        model_limits: { 'gpt-4o-mini': true, 'gpt-4o': true },
        model_limits_enabled: true,
        expires_at: expiry,
      },
    });
    // new-api's path with the trailing slash, a key without "Bearer", and a key with a channel suffix name the same token.
    for (const [path, header] of [
      ['/api/usage/token/', `Bearer ${limited.apiKey}`],
      ['/api/usage/token', limited.apiKey],
      ['/api/usage/token', `Bearer ${limited.apiKey}-3`],
      ['/api/usage/token', `bearer ${limited.key}`],
    ]) {
      const again = await get(path!, header);
      expect(again.status, `${path} ${header}`).toBe(200);
      expect(again.body.data.name).toBe('script');
    }
    const open = await get('/api/usage/token', `Bearer ${unlimited.apiKey}`);
    expect(open.body.data).toMatchObject({
      name: 'open',
      unlimited_quota: true,
      model_limits: {},
      model_limits_enabled: false,
      expires_at: 0,
      total_used: 0,
    });
  });

  it('still answers an expired or exhausted token (read-only), but not a disabled or deleted one', async () => {
    const expired = await createRelayToken(server.ctx, userId, { name: 'old', remainQuota: 10, expiredTime: now - 60 });
    await server.ctx.storage.db.updateTable('tokens').set({ status: 3 }).where('id', '=', expired.id).execute();
    expect(await get('/api/usage/token', `Bearer ${expired.apiKey}`)).toMatchObject({
      status: 200,
      body: { data: { name: 'old', expires_at: now - 60 } },
    });
    const exhausted = await createRelayToken(server.ctx, userId, { name: 'spent', remainQuota: 0, status: 4 });
    expect((await get('/api/usage/token', `Bearer ${exhausted.apiKey}`)).body.data).toMatchObject({ name: 'spent', total_available: 0 });
    const disabled = await createRelayToken(server.ctx, userId, { name: 'off', status: 2 });
    expect(await get('/api/usage/token', `Bearer ${disabled.apiKey}`)).toMatchObject({
      status: 401,
      body: { success: false, message: '该令牌状态不可用' },
    });
    const deleted = await createRelayToken(server.ctx, userId, { name: 'gone' });
    await server.ctx.storage.db.updateTable('tokens').set({ deleted_at: now }).where('id', '=', deleted.id).execute();
    expect(await get('/api/log/token', `Bearer ${deleted.apiKey}`)).toMatchObject({
      status: 401,
      body: { success: false, message: '无效的令牌' },
    });
  });

  it.each([
    ['no Authorization header', undefined, '未提供令牌'],
    ['an empty header', '', '未提供令牌'],
    ['only "Bearer sk-"', 'Bearer sk-', '无效的令牌'],
    ['an unknown key', 'Bearer sk-thisisnotakeyatall0123456789', '无效的令牌'],
    ['a key with odd characters', "Bearer sk-abc' OR 1=1 --", '无效的令牌'],
    ['a huge header', `Bearer sk-${'a'.repeat(8000)}`, '无效的令牌'],
    ['a session-style value', 'Basic dXNlcjpwYXNz', '无效的令牌'],
  ])('answers %s with 401, never 5xx, on both routes', async (_case, header, message) => {
    for (const path of ['/api/usage/token', '/api/log/token']) {
      const res = await get(path, header);
      expect(res.status, path).toBe(401);
      expect(res.body).toMatchObject({ success: false, message });
    }
  });

  it('refuses a banned owner with 403', async () => {
    const banned = await createRelayUser(server.ctx, { status: 2 });
    const token = await createRelayToken(server.ctx, banned, { name: 'banned' });
    expect(await get('/api/usage/token', `Bearer ${token.apiKey}`)).toMatchObject({
      status: 403,
      body: { success: false, message: '用户已被封禁' },
    });
  });

  it('GET /api/log/token lists that token\u2019s own logs, newest first, without channel or admin details', async () => {
    const res = await get('/api/log/token', `Bearer ${limited.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: '' });
    const logs = res.body.data as Record<string, unknown>[];
    expect(logs.map((log) => [log.type, log.quota, log.token_name])).toEqual([
      [2, 200, 'script'],
      [6, 50, 'script'],
      [2, 100, 'script'],
    ]);
    for (const log of logs) {
      expect(log).not.toHaveProperty('channel_id');
      expect(log).not.toHaveProperty('channel');
      expect(String(log.other)).not.toContain('admin_info');
    }
    expect(JSON.parse(String(logs[2]!.other))).toEqual({ model_ratio: 1 });
    // The refund row is there, in the reader's language.
    const english = await fetch(`${server.url}/api/log/token`, {
      headers: { authorization: `Bearer ${limited.apiKey}`, 'accept-language': 'en' },
    });
    expect(((await english.json()) as any).data[1].content).toBe('suno task t1 (MUSIC) failed, quota refunded: The task timed out');
    // Another token of the same user, and another user's token, see only their own.
    expect((await get('/api/log/token', `Bearer ${unlimited.apiKey}`)).body.data.map((log: { quota: number }) => log.quota)).toEqual([300]);
    expect((await get('/api/log/token', `Bearer ${other.apiKey}`)).body.data).toEqual([]);
  });

  it('pages /api/log/token when asked, and refuses bad paging with 400', async () => {
    const page = await get('/api/log/token?p=2&page_size=2', `Bearer ${limited.apiKey}`);
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(page.body.data.items.map((log: { quota: number }) => log.quota)).toEqual([100]);
    for (const query of ['p=0', 'p=x', 'page_size=1000', 'page_size=-1', 'p=1.5']) {
      const bad = await get(`/api/log/token?${query}`, `Bearer ${limited.apiKey}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.success).toBe(false);
    }
  });

  it('keeps /dashboard/billing/subscription and /usage working with the same key', async () => {
    for (const prefix of ['', '/v1']) {
      const subscription = await get(`${prefix}/dashboard/billing/subscription`, `Bearer ${limited.apiKey}`);
      expect(subscription.status).toBe(200);
      // A limited token: its granted quota (remain + used) in US$ (QuotaPerUnit 500,000).
      expect(subscription.body).toMatchObject({
        object: 'billing_subscription',
        has_payment_method: true,
        hard_limit_usd: 2,
        soft_limit_usd: 2,
        system_hard_limit_usd: 2,
        access_until: expiry,
      });
      const usage = await get(`${prefix}/dashboard/billing/usage`, `Bearer ${limited.apiKey}`);
      expect(usage).toMatchObject({ status: 200, body: { object: 'list', total_usage: 50 } });
      expect((await get(`${prefix}/dashboard/billing/usage`)).status).toBe(401);
      expect((await get(`${prefix}/dashboard/billing/subscription`, 'Bearer sk-nope')).status).toBe(401);
    }
    // An unlimited token reports its user's quota.
    const open = await get('/v1/dashboard/billing/subscription', `Bearer ${unlimited.apiKey}`);
    expect(open.body.hard_limit_usd).toBe(9_000_000 / 500_000);
  });
});
