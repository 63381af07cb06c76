import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { redemptionColumns } from '../../src/api/redemptions/redemption-rules.js';

const now = () => Math.floor(Date.now() / 1000);

describe.each(storageKinds())('redemption code management on %s', (kind) => {
  let server: TestServer;
  let root: LoggedIn;
  let admin: LoggedIn;
  let regular: LoggedIn;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    root = await setupRootAndLogin(server);
    admin = await createUserAndLogin(server, root.client, 'admin1', 10);
    regular = await createUserAndLogin(server, root.client, 'user1', 1);
  });
  afterAll(async () => server?.stop());

  /** Creates codes; the answer is their keys as strings, so the rows are read back by key. */
  async function create(body: Record<string, unknown>) {
    const res = await admin.client.post('/api/redemption/', body);
    expect(res.status, res.text).toBe(200);
    const keys = res.body.data as string[];
    const rows = await server.ctx.storage.db
      .selectFrom('redemptions')
      .select([...redemptionColumns])
      .where('key', 'in', keys)
      .orderBy('id')
      .execute();
    return keys.map((key) => rows.find((row) => row.key === key)!) as any[];
  }

  it('answers 403 to a regular user and 401 without a session on every route', async () => {
    const [code] = await create({ name: 'guarded', quota: 10, count: 1 });
    const routes = [
      ['GET', '/api/redemption/'],
      ['GET', '/api/redemption/search?keyword=a'],
      ['GET', `/api/redemption/${code.id}`],
      ['POST', '/api/redemption/'],
      ['PUT', '/api/redemption/'],
      ['PUT', '/api/redemption/?status_only=true'],
      ['DELETE', `/api/redemption/${code.id}`],
    ] as const;
    for (const [method, path] of routes) {
      const body = method === 'POST' || method === 'PUT' ? { id: code.id, name: 'x', quota: 1, count: 1, status: 2 } : undefined;
      const asUser = await regular.client.request(method, path, body);
      expect(asUser.status, `${method} ${path}`).toBe(403);
      expect(asUser.body).toEqual({ success: false, message: '无权进行此操作，权限不足', data: null });
      const anonymous = await server.client().request(method, path, body);
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.body.success).toBe(false);
    }
    const untouched = await admin.client.get(`/api/redemption/${code.id}`);
    expect(untouched.body.data).toMatchObject({ name: 'guarded', quota: 10, status: 1 });
  });

  it('creates a batch of unused codes with distinct 32-character keys', async () => {
    const res = await admin.client.post('/api/redemption/', { name: 'batch', quota: 250000, count: 5, expired_time: now() + 3600 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('兑换码创建成功');
    const keys = res.body.data as string[];
    expect(keys).toHaveLength(5);
    for (const key of keys) expect(typeof key).toBe('string');
    const codes = (await server.ctx.storage.db.selectFrom('redemptions').selectAll().where('key', 'in', keys).execute()) as any[];
    expect(codes).toHaveLength(5);
    for (const code of codes) {
      expect(code).toMatchObject({ name: 'batch', quota: 250000, status: 1, used_user_id: 0, redeemed_time: 0, user_id: admin.userId });
      expect(code.key).toMatch(/^[a-zA-Z0-9]{32}$/);
      expect(Math.abs(code.created_time - now())).toBeLessThan(5);
    }
    expect(new Set(codes.map((c) => c.key)).size).toBe(5);
    const stored = await server.ctx.storage.db
      .selectFrom('redemptions')
      .select(['key', 'expired_time'])
      .where('id', '=', codes[0].id)
      .executeTakeFirstOrThrow();
    expect(stored.key).toBe(codes[0].key);
    expect(stored.expired_time).toBe(codes[0].expired_time);
  });

  it('names a code with a blank name after its quota in dollars and defaults count to 1', async () => {
    const [blank] = await create({ name: '   ', quota: 100000 });
    expect(blank.name).toBe('$0.20');
    expect(blank.expired_time).toBe(0);
    const [missing] = await create({ quota: 1500000, count: 1 });
    expect(missing.name).toBe('$3.00');
  });

  it('rejects bad create input with clear messages', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x'.repeat(21), quota: 1, count: 1 }, 'name: 兑换码名称长度必须在 1 到 20 个字符之间'],
      [{ name: 'n', count: 1 }, 'quota: 额度必须是大于 0 的整数'],
      [{ name: 'n', quota: 0, count: 1 }, 'quota: 额度必须是大于 0 的整数'],
      [{ name: 'n', quota: 1.5, count: 1 }, 'quota: 额度必须是大于 0 的整数'],
      [{ name: 'n', quota: '100', count: 1 }, 'quota: 额度必须是大于 0 的整数'],
      [{ name: 'n', quota: 1, count: 0 }, 'count: 兑换码个数必须是 1 到 100 之间的整数'],
      [{ name: 'n', quota: 1, count: 101 }, 'count: 兑换码个数必须是 1 到 100 之间的整数'],
      [{ name: 'n', quota: 1, count: 2.5 }, 'count: 兑换码个数必须是 1 到 100 之间的整数'],
      [{ name: 'n', quota: 1, expired_time: -1 }, 'expired_time: 过期时间格式错误！'],
      [{ name: 'n', quota: 1, expired_time: now() - 60 }, '过期时间不能早于当前时间'],
      [{ name: 5, quota: 1 }, 'name: 兑换码名称必须是字符串'],
    ];
    const before = await admin.client.get('/api/redemption/?p=1&page_size=100');
    for (const [body, message] of cases) {
      const res = await admin.client.post('/api/redemption/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ success: false, message, data: null });
    }
    const malformed = await admin.client.post('/api/redemption/', undefined, { raw: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ success: false, message: '请求体不是合法的 JSON', data: null });
    const after = await admin.client.get('/api/redemption/?p=1&page_size=100');
    expect(after.body.data.total).toBe(before.body.data.total);
  });

  it('lists page by page, newest first, and searches by id, name or key', async () => {
    const made = await create({ name: 'findme-unique', quota: 7, count: 3 });
    const page1 = await admin.client.get('/api/redemption/?p=1&page_size=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data).toMatchObject({ page: 1, page_size: 2 });
    expect(page1.body.data.items).toHaveLength(2);
    expect(page1.body.data.items[0].id).toBe(made[2].id);
    const total = page1.body.data.total;
    const all = await admin.client.get('/api/redemption/?p=0&page_size=100');
    expect(all.body.data.page).toBe(1);
    expect(all.body.data.items).toHaveLength(total);
    const ids = all.body.data.items.map((c: any) => c.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));

    const byName = await admin.client.get('/api/redemption/search?keyword=findme&p=1&page_size=10');
    expect(byName.body.data.total).toBe(3);
    expect(byName.body.data.items.map((c: any) => c.id)).toEqual(made.map((c) => c.id).reverse());
    const byId = await admin.client.get(`/api/redemption/search?keyword=${made[1].id}`);
    expect(byId.body.data.items.map((c: any) => c.id)).toContain(made[1].id);
    const byKey = await admin.client.get(`/api/redemption/search?keyword=${made[0].key}`);
    expect(byKey.body.data.items.map((c: any) => c.id)).toEqual([made[0].id]);
    const byKeyPrefix = await admin.client.get(`/api/redemption/search?keyword=${made[0].key.slice(0, 12)}`);
    expect(byKeyPrefix.body.data.items.map((c: any) => c.id)).toContain(made[0].id);
    const wildcard = await admin.client.get('/api/redemption/search?keyword=%25');
    expect(wildcard.body.data.total).toBe(0);
    const empty = await admin.client.get('/api/redemption/search?keyword=');
    expect(empty.body.data.total).toBe(total);

    for (const bad of ['p=x', 'page_size=0', 'page_size=101', 'page_size=abc']) {
      const res = await admin.client.get(`/api/redemption/?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.success).toBe(false);
    }
  });

  it('gets one code and answers 404 for unknown ids and 400 for malformed ones', async () => {
    const [code] = await create({ name: 'one', quota: 3 });
    const res = await admin.client.get(`/api/redemption/${code.id}`);
    expect(res.body).toEqual({ success: true, message: '', data: code });
    const missing = await admin.client.get('/api/redemption/999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, message: '兑换码不存在', data: null });
    expect((await admin.client.get('/api/redemption/abc')).status).toBe(400);
    expect((await admin.client.get('/api/redemption/-3')).status).toBe(400);
  });

  it('edits name, quota and expiry of an unused code only', async () => {
    const [code] = await create({ name: 'edit', quota: 10 });
    const expiry = now() + 7200;
    const res = await admin.client.put('/api/redemption/', {
      ...code,
      name: 'edited',
      quota: 20,
      expired_time: expiry,
      status: 3,
      key: 'ignored',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('兑换码更新成功！');
    expect(res.body.data).toMatchObject({ id: code.id, name: 'edited', quota: 20, expired_time: expiry, status: 1, key: code.key });

    const cases: Array<[unknown, number, string]> = [
      [{ name: 'x' }, 400, 'id: id 必须是数字'],
      [{ id: code.id, name: '' }, 400, 'name: 兑换码名称长度必须在 1 到 20 个字符之间'],
      [{ id: code.id, quota: 0 }, 400, 'quota: 额度必须是大于 0 的整数'],
      [{ id: code.id, expired_time: now() - 5 }, 400, '过期时间不能早于当前时间'],
      [{ id: 999999, name: 'x' }, 404, '兑换码不存在'],
    ];
    for (const [body, status, message] of cases) {
      const bad = await admin.client.put('/api/redemption/', body);
      expect(bad.status, JSON.stringify(body)).toBe(status);
      expect(bad.body).toEqual({ success: false, message, data: null });
    }

    await admin.client.put('/api/redemption/?status_only=true', { id: code.id, status: 2 });
    const disabledEdit = await admin.client.put('/api/redemption/', { id: code.id, name: 'nope' });
    expect(disabledEdit.status).toBe(400);
    expect(disabledEdit.body.message).toBe('只有未使用的兑换码可以编辑');
    const stored = await admin.client.get(`/api/redemption/${code.id}`);
    expect(stored.body.data).toMatchObject({ name: 'edited', status: 2 });
  });

  it('enables and disables, but never re-enables a used code', async () => {
    const [code] = await create({ name: 'toggle', quota: 10 });
    const off = await admin.client.put('/api/redemption/?status_only=true', { id: code.id, status: 2 });
    expect(off.status, off.text).toBe(200);
    expect(off.body.data.status).toBe(2);
    const on = await admin.client.put('/api/redemption/?status_only=true', { id: code.id, status: 1 });
    expect(on.body.data.status).toBe(1);

    for (const body of [{ id: code.id, status: 3 }, { id: code.id, status: '1' }, { id: code.id }]) {
      const bad = await admin.client.put('/api/redemption/?status_only=true', body);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('status: 状态必须是 1（启用）或 2（禁用）');
    }
    expect((await admin.client.put('/api/redemption/?status_only=true', { id: 999999, status: 2 })).status).toBe(404);
    expect((await admin.client.put('/api/redemption/?status_only=maybe', { id: code.id, status: 2 })).status).toBe(400);

    const redeemed = await regular.client.post('/api/user/topup', { key: code.key });
    expect(redeemed.status, redeemed.text).toBe(200);
    const enableUsed = await admin.client.put('/api/redemption/?status_only=true', { id: code.id, status: 1 });
    expect(enableUsed.status).toBe(400);
    expect(enableUsed.body).toEqual({ success: false, message: '已使用的兑换码无法启用', data: null });
    const editUsed = await admin.client.put('/api/redemption/', { id: code.id, quota: 999 });
    expect(editUsed.body.message).toBe('只有未使用的兑换码可以编辑');
    const row = await admin.client.get(`/api/redemption/${code.id}`);
    expect(row.body.data).toMatchObject({ status: 3, used_user_id: regular.userId, quota: 10 });
    expect(row.body.data.redeemed_time).toBeGreaterThan(0);
  });

  it('deletes a code (soft): gone from lists, lookups and redemption', async () => {
    const [code] = await create({ name: 'doomed', quota: 10 });
    const res = await admin.client.delete(`/api/redemption/${code.id}/`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: '', data: null });
    expect((await admin.client.get(`/api/redemption/${code.id}`)).status).toBe(404);
    const search = await admin.client.get(`/api/redemption/search?keyword=${code.key}`);
    expect(search.body.data.total).toBe(0);
    expect((await admin.client.delete(`/api/redemption/${code.id}`)).status).toBe(404);
    expect((await admin.client.put('/api/redemption/', { id: code.id, name: 'back' })).status).toBe(404);
    const redeem = await regular.client.post('/api/user/topup', { key: code.key });
    expect(redeem.status).toBe(400);
    expect(redeem.body.message).toBe('无效的兑换码');
    const row = await server.ctx.storage.db
      .selectFrom('redemptions')
      .select(['deleted_at', 'status'])
      .where('id', '=', code.id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeGreaterThan(0);
    expect(row.status).toBe(1);
    expect((await admin.client.delete('/api/redemption/abc')).status).toBe(400);
  });

  it('lets root manage codes too', async () => {
    const res = await root.client.post('/api/redemption/', { name: 'by-root', quota: 1, count: 2 });
    expect(res.status).toBe(200);
    const keys = res.body.data as string[];
    const rows = await server.ctx.storage.db.selectFrom('redemptions').select(['key', 'user_id']).where('key', 'in', keys).execute();
    expect(rows.map((row) => row.user_id)).toEqual([root.userId, root.userId]);
  });
});
