import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

describe.each(storageKinds())('redeeming codes on %s', (kind) => {
  let server: TestServer;
  let admin: LoggedIn;
  let alice: LoggedIn;
  let bob: LoggedIn;
  const published: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await setupRootAndLogin(server);
    alice = await createUserAndLogin(server, admin.client, 'alice');
    bob = await createUserAndLogin(server, admin.client, 'bob');
    await server.ctx.bus.subscribe('users', (payload) => published.push(payload));
  });
  afterAll(async () => {
    // pg's pool.end() resolves before its sockets finish closing; after 20 parallel requests the
    // helper's DROP DATABASE ... WITH (FORCE) can race them, so close first and let them drain.
    await server?.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server?.stop();
  });

  async function createCode(quota: number, extra: Record<string, unknown> = {}) {
    const res = await admin.client.post('/api/redemption/', { name: 'gift', quota, count: 1, ...extra });
    expect(res.status, res.text).toBe(200);
    const key = (res.body.data as string[])[0]!;
    return await server.ctx.storage.db
      .selectFrom('redemptions')
      .select(['id', 'key', 'quota'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
  }

  const quotaOf = async (userId: number) =>
    (await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota;

  const topUpLogsFor = (codeId: number) =>
    server.ctx.storage.db.selectFrom('logs').selectAll().where('type', '=', 1).where('content', 'like', `%兑换码ID ${codeId}`).execute();

  it('credits the code quota once, marks the code used and writes a top-up log', async () => {
    const code = await createCode(100000);
    const before = await quotaOf(alice.userId);
    published.length = 0;
    const res = await alice.client.post('/api/user/topup', { key: `  ${code.key} ` });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: '兑换成功！', data: 100000 });
    expect(await quotaOf(alice.userId)).toBe(before + 100000);
    const self = await alice.client.get('/api/user/self');
    expect(self.body.data.quota).toBe(before + 100000);
    const row = await admin.client.get(`/api/redemption/${code.id}`);
    expect(row.body.data).toMatchObject({ status: 3, used_user_id: alice.userId });
    const logs = await topUpLogsFor(code.id);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ user_id: alice.userId, username: 'alice', quota: 100000, type: 1 });
    expect(logs[0]!.content).toBe(`通过兑换码充值 ＄0.200000 额度，兑换码ID ${code.id}`);
    await expect.poll(() => published).toContain(String(alice.userId));

    const again = await bob.client.post('/api/user/topup', { key: code.key });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ success: false, message: '该兑换码已被使用', data: null });
  });

  it('refuses empty, unknown, disabled and expired codes with clear messages and credits nothing', async () => {
    const disabled = await createCode(500);
    await admin.client.put('/api/redemption/?status_only=true', { id: disabled.id, status: 2 });
    const expired = await createCode(500, { expired_time: Math.floor(Date.now() / 1000) + 3600 });
    await server.ctx.storage.db
      .updateTable('redemptions')
      .set({ expired_time: Math.floor(Date.now() / 1000) - 10 })
      .where('id', '=', expired.id)
      .execute();
    const before = await quotaOf(bob.userId);
    const cases: Array<[unknown, string]> = [
      [{ key: '' }, 'key: 请输入兑换码！'],
      [{ key: '   ' }, 'key: 请输入兑换码！'],
      [{}, 'key: 请输入兑换码！'],
      [{ key: 12345 }, 'key: 请输入兑换码！'],
      [{ key: 'x'.repeat(129) }, 'key: 无效的兑换码'],
      [{ key: 'no-such-code-000000000000000000' }, '无效的兑换码'],
      [{ key: disabled.key }, '该兑换码已被禁用'],
      [{ key: expired.key }, '该兑换码已过期'],
    ];
    for (const [body, message] of cases) {
      const res = await bob.client.post('/api/user/topup', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ success: false, message, data: null });
    }
    expect((await bob.client.post('/api/user/topup', undefined, { raw: '{"key":' })).status).toBe(400);
    expect(await quotaOf(bob.userId)).toBe(before);
    for (const code of [disabled, expired]) {
      const row = await admin.client.get(`/api/redemption/${code.id}`);
      expect(row.body.data.used_user_id).toBe(0);
    }

    await admin.client.put('/api/redemption/?status_only=true', { id: disabled.id, status: 1 });
    const reenabled = await bob.client.post('/api/user/topup', { key: disabled.key });
    expect(reenabled.body).toEqual({ success: true, message: '兑换成功！', data: 500 });
    expect(await quotaOf(bob.userId)).toBe(before + 500);
  });

  it('requires a session', async () => {
    const code = await createCode(10);
    const res = await server.client().post('/api/user/topup', { key: code.key });
    expect(res.status).toBe(401);
    const row = await admin.client.get(`/api/redemption/${code.id}`);
    expect(row.body.data.status).toBe(1);
  });

  it('credits exactly once under 20 concurrent redemptions of one code from two users', async () => {
    for (let round = 0; round < 3; round++) {
      const code = await createCode(777);
      const [aliceBefore, bobBefore] = [await quotaOf(alice.userId), await quotaOf(bob.userId)];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? alice : bob).client.post('/api/user/topup', { key: code.key })),
      );
      const wins = results.filter((res) => res.status === 200);
      expect(wins, results.map((r) => r.text).join('\n')).toHaveLength(1);
      expect(wins[0]!.body).toEqual({ success: true, message: '兑换成功！', data: 777 });
      for (const res of results.filter((r) => r.status !== 200)) {
        expect(res.status, res.text).toBe(400);
        expect(res.body.message).toBe('该兑换码已被使用');
      }
      const gained = (await quotaOf(alice.userId)) - aliceBefore + (await quotaOf(bob.userId)) - bobBefore;
      expect(gained).toBe(777);
      const logs = await topUpLogsFor(code.id);
      expect(logs).toHaveLength(1);
      const row = await admin.client.get(`/api/redemption/${code.id}`);
      expect(row.body.data.status).toBe(3);
      expect(row.body.data.used_user_id).toBe(logs[0]!.user_id);
    }
  });
});

describe('wallet rate limits', () => {
  let server: TestServer;
  afterAll(async () => server?.stop());

  it('limits redeeming and ordering with the critical per-IP limit, but not the price quote', async () => {
    server = await startTestServer({ env: { CRITICAL_RATE_LIMIT: '3' } });
    const { client } = await signedInClient(server, { username: 'guesser' });
    for (let i = 0; i < 3; i++) {
      const res = await client.post('/api/user/topup', { key: `guess-${i}` });
      expect(res.body.message).toBe('无效的兑换码');
    }
    const limited = await client.post('/api/user/topup', { key: 'guess-4' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, message: '请求次数过多，请稍后再试！', data: null });
    expect((await client.post('/api/user/pay', { amount: 5, payment_method: 'wx' })).status).toBe(429);
    for (let i = 0; i < 5; i++) {
      const quote = await client.post('/api/user/amount', { amount: 5 });
      expect(quote.status).toBe(400);
      expect(quote.body.message).toBe('管理员未开启在线充值！');
    }
  });
});
