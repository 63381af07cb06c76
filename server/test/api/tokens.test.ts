import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const now = () => Math.floor(Date.now() / 1000);

describe.each(storageKinds())('token management on %s', (kind) => {
  let server: TestServer;
  let alice: ApiClient;
  let bob: ApiClient;
  let aliceId: number;
  const published: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ kind });
    ({ client: alice, userId: aliceId } = await signedInClient(server, { username: 'alice', group: 'team-a' }));
    ({ client: bob } = await signedInClient(server, { username: 'bob' }));
    await server.ctx.bus.subscribe('tokens', (payload) => published.push(payload));
  });
  afterAll(async () => server?.stop());

  async function create(client: ApiClient, body: Record<string, unknown>) {
    const res = await client.post('/api/token/', body);
    expect(res.status, res.text).toBe(200);
    return res.body.data as any[];
  }

  it('creates a token with defaults and a 48-character key stored without prefix', async () => {
    const res = await alice.post('/api/token/', { name: 'first' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('令牌创建成功，请在列表页面点击复制获取令牌！');
    const [token] = res.body.data;
    expect(token).toMatchObject({
      name: 'first',
      user_id: aliceId,
      status: 1,
      remain_quota: 500000,
      unlimited_quota: 0,
      expired_time: -1,
      group: '',
    });
    expect(token.key).toMatch(/^[a-zA-Z0-9]{48}$/);
    const stored = await server.ctx.storage.db.selectFrom('tokens').select('key').where('id', '=', token.id).executeTakeFirstOrThrow();
    expect(stored.key).toBe(token.key);
  });

  it('creates a batch with suffixed names and normalised limits', async () => {
    const tokens = await create(alice, {
      name: 'batch',
      count: 3,
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: now() + 3600,
      model_limits_enabled: true,
      model_limits: ['gpt-4o', ' gpt-4o ', 'claude'],
      allow_ips: '10.0.0.1\n\n192.168.0.0/16\n::1\n2001:db8::/32',
      group: 'vip',
    });
    expect(tokens).toHaveLength(3);
    expect(tokens[0].name).toBe('batch');
    for (const token of tokens.slice(1)) expect(token.name).toMatch(/^batch-[a-zA-Z0-9]{6}$/);
    expect(new Set(tokens.map((t) => t.key)).size).toBe(3);
    expect(tokens[0]).toMatchObject({
      unlimited_quota: 1,
      model_limits_enabled: 1,
      model_limits: 'gpt-4o,claude',
      allow_ips: '10.0.0.1\n192.168.0.0/16\n::1\n2001:db8::/32',
      group: 'vip',
    });
    const own = await create(alice, { name: 'own-group', group: 'team-a' });
    expect(own[0].group).toBe('team-a');
  });

  it('rejects bad token input with clear messages', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, '令牌名称不能为空'],
      [{ name: '   ' }, '令牌名称不能为空'],
      [{ name: 'x'.repeat(51) }, 'name: 令牌名称过长，最多 50 个字符'],
      [{ name: 'n', remain_quota: -1 }, 'remain_quota: 剩余额度必须是非负整数'],
      [{ name: 'n', remain_quota: 1.5 }, 'remain_quota: 剩余额度必须是非负整数'],
      [{ name: 'n', expired_time: 'tomorrow' }, 'expired_time: 过期时间格式错误！'],
      [{ name: 'n', expired_time: -5 }, 'expired_time: 过期时间格式错误！'],
      [{ name: 'n', expired_time: now() - 10 }, '过期时间不能早于当前时间'],
      [{ name: 'n', allow_ips: '10.0.0.1\n300.1.1.1' }, 'IP 限制格式错误：300.1.1.1（每行一个 IP 或 CIDR）'],
      [{ name: 'n', allow_ips: '10.0.0.0/33' }, 'IP 限制格式错误：10.0.0.0/33（每行一个 IP 或 CIDR）'],
      [{ name: 'n', allow_ips: 'localhost' }, 'IP 限制格式错误：localhost（每行一个 IP 或 CIDR）'],
      [{ name: 'n', group: 'svip' }, '无权使用分组 svip'],
      [{ name: 'n', count: 0 }, 'count: 批量创建数量必须是 1 到 100 之间的整数'],
      [{ name: 'n', count: 101 }, 'count: 批量创建数量必须是 1 到 100 之间的整数'],
      [{ name: 'n', unlimited_quota: 'yes' }, 'unlimited_quota: 必须是布尔值'],
    ];
    for (const [body, message] of cases) {
      const res = await alice.post('/api/token/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ success: false, message, data: null });
    }
    expect((await alice.post('/api/token/', undefined, { raw: '{"name":' })).status).toBe(400);
    expect((await alice.post('/api/token/', { name: 'n', allow_ips: '1'.repeat(3 * 1024 * 1024) })).status).toBe(413);
  });

  it("lists and searches only the caller's tokens", async () => {
    await create(bob, { name: 'bob-secret' });
    const list = await alice.get('/api/token/?p=1&size=2');
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ page: 1, page_size: 2 });
    expect(list.body.data.items).toHaveLength(2);
    const all = await alice.get('/api/token/?p=0&page_size=100');
    expect(all.body.data.total).toBe(list.body.data.total);
    expect(all.body.data.items.every((t: any) => t.user_id === aliceId)).toBe(true);
    const ids = all.body.data.items.map((t: any) => t.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));

    const byName = await alice.get('/api/token/search?keyword=batch');
    expect(byName.body.data.total).toBe(3);
    expect((await alice.get('/api/token/search?keyword=bob')).body.data.total).toBe(0);
    expect((await alice.get('/api/token/search?keyword=50%25')).body.data.total).toBe(0);
    const key = all.body.data.items[0].key;
    const byKey = await alice.get(`/api/token/search?token=sk-${key}`);
    expect(byKey.body.data.items.map((t: any) => t.key)).toEqual([key]);
    expect((await alice.get(`/api/token/search?token=${key}`)).body.data.total).toBe(1);
    expect((await alice.get('/api/token/?size=500')).status).toBe(400);
  });

  it('gets, updates and deletes own tokens; publishes each change', async () => {
    const [token] = await create(alice, { name: 'editable' });
    expect((await alice.get(`/api/token/${token.id}`)).body.data).toMatchObject({ id: token.id, key: token.key });
    const before = published.length;
    const res = await alice.put('/api/token/', {
      id: token.id,
      name: 'edited',
      remain_quota: 42,
      expired_time: now() + 60,
      model_limits: 'a,b',
      allow_ips: '',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('令牌更新成功！');
    expect(res.body.data).toMatchObject({ id: token.id, name: 'edited', remain_quota: 42, model_limits: 'a,b', key: token.key });
    const stored = (await alice.get(`/api/token/${token.id}`)).body.data;
    expect(stored).toMatchObject({ name: 'edited', remain_quota: 42 });
    expect((await alice.put('/api/token/', { id: token.id, name: '' })).body.message).toBe('令牌名称不能为空');
    expect((await alice.put('/api/token/', { id: token.id, group: 'svip' })).body.message).toBe('无权使用分组 svip');
    expect((await alice.put('/api/token/', { id: token.id, allow_ips: 'nope' })).status).toBe(400);
    expect((await alice.put('/api/token/', { name: 'x' })).status).toBe(400);

    expect((await alice.delete(`/api/token/${token.id}/`)).body.success).toBe(true);
    expect((await alice.get(`/api/token/${token.id}`)).status).toBe(404);
    expect((await alice.delete(`/api/token/${token.id}`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(published.slice(before)).toEqual([String(token.id), String(token.id)]);
  });

  it('toggles status; an expired or exhausted token cannot be enabled', async () => {
    const [token] = await create(alice, { name: 'toggle' });
    const off = await alice.put('/api/token/?status_only=true', { id: token.id, status: 2 });
    expect(off.body.data.status).toBe(2);
    expect((await alice.put('/api/token/?status_only=true', { id: token.id, status: 1 })).body.data.status).toBe(1);
    expect((await alice.put('/api/token/?status_only=true', { id: token.id, status: 3 })).status).toBe(400);

    await server.ctx.storage.db
      .updateTable('tokens')
      .set({ status: 3, expired_time: now() - 5 })
      .where('id', '=', token.id)
      .execute();
    const expired = await alice.put('/api/token/?status_only=true', { id: token.id, status: 1 });
    expect(expired.status).toBe(400);
    expect(expired.body.message).toBe('令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期');
    await alice.put('/api/token/', { id: token.id, expired_time: -1 });
    await server.ctx.storage.db.updateTable('tokens').set({ status: 4, remain_quota: 0 }).where('id', '=', token.id).execute();
    const exhausted = await alice.put('/api/token/?status_only=true', { id: token.id, status: 1 });
    expect(exhausted.body.message).toBe('令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度');
    expect((await alice.put('/api/token/', { id: token.id, status: 1 })).status).toBe(400);
    // The editor sends the whole row back: an unchanged relay-set status (4) does not block an edit.
    const renamed = await alice.put('/api/token/', { ...(await alice.get(`/api/token/${token.id}`)).body.data, name: 'renamed' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'renamed', status: 4 });
    const refilled = await alice.put('/api/token/', { id: token.id, unlimited_quota: true, status: 1 });
    expect(refilled.body.data).toMatchObject({ status: 1, unlimited_quota: 1 });
  });

  it("hides other users' tokens (404) and requires sign-in (401)", async () => {
    const [bobToken] = await create(bob, { name: 'private' });
    expect((await alice.get(`/api/token/${bobToken.id}`)).status).toBe(404);
    expect((await alice.put('/api/token/', { id: bobToken.id, name: 'stolen' })).status).toBe(404);
    expect((await alice.put('/api/token/?status_only=true', { id: bobToken.id, status: 2 })).status).toBe(404);
    expect((await alice.delete(`/api/token/${bobToken.id}`)).status).toBe(404);
    expect((await bob.get(`/api/token/${bobToken.id}`)).body.data).toMatchObject({ name: 'private', status: 1 });
    const anonymous = server.client();
    for (const [method, path] of [
      ['GET', '/api/token/'],
      ['GET', '/api/token/search'],
      ['GET', '/api/token/1'],
      ['POST', '/api/token/'],
      ['PUT', '/api/token/'],
      ['DELETE', '/api/token/1'],
    ] as const) {
      expect(
        (await anonymous.request(method, path, method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined)).status,
        `${method} ${path}`,
      ).toBe(401);
    }
    expect((await alice.get('/api/token/abc')).status).toBe(400);
  });

  it('takes the auto group only when it is usable, and stores cross_group_retry', async () => {
    const refused = await alice.post('/api/token/', { name: 'auto-off', group: 'auto' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('无权使用分组 auto');
    const usable = server.ctx.options.get('UserUsableGroups');
    await server.ctx.options.set('UserUsableGroups', JSON.stringify({ ...JSON.parse(usable), auto: '自动选择' }));
    try {
      const [token] = await create(alice, { name: 'auto-on', group: 'auto', cross_group_retry: true });
      expect(token).toMatchObject({ group: 'auto', cross_group_retry: 1 });
      const [plain] = await create(alice, { name: 'plain' });
      expect(plain.cross_group_retry).toBe(0);
      const updated = await alice.put('/api/token/', { id: token.id, cross_group_retry: false });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ group: 'auto', cross_group_retry: 0 });
      expect((await alice.get(`/api/token/${token.id}`)).body.data.cross_group_retry).toBe(0);
      expect((await alice.put('/api/token/', { id: token.id, cross_group_retry: 'yes' })).status).toBe(400);
      const groups = await alice.get('/api/user/self/groups');
      expect(groups.body.data.auto).toEqual({ desc: '自动选择', ratio: '自动' });
    } finally {
      await server.ctx.options.set('UserUsableGroups', usable);
    }
  });
  it('stores response_cache_ttl (seconds; 0 by default) and refuses a negative or fractional one', async () => {
    const [plain] = await create(alice, { name: 'no-cache' });
    expect(plain.response_cache_ttl).toBe(0);
    const [cached] = await create(alice, { name: 'cached', response_cache_ttl: 300 });
    expect(cached.response_cache_ttl).toBe(300);
    const updated = await alice.put('/api/token/', { id: cached.id, response_cache_ttl: 60 });
    expect(updated.status, updated.text).toBe(200);
    expect((await alice.get(`/api/token/${cached.id}`)).body.data.response_cache_ttl).toBe(60);
    for (const bad of [-1, 1.5, '60', 2_592_001]) {
      const refused = await alice.put('/api/token/', { id: cached.id, response_cache_ttl: bad });
      expect(refused.status, String(bad)).toBe(400);
      expect(refused.body.success).toBe(false);
    }
    expect((await alice.post('/api/token/', { name: 'bad', response_cache_ttl: -5 })).status).toBe(400);
  });
});
