import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * Sign-up rewards write system logs (type 4), as new-api does: QuotaForNewUser for every new account
 * (registered or created by an admin), and with an invite code QuotaForInvitee to the new user and
 * QuotaForInviter to the inviter. They show in the usage log under the system filter, with the
 * refund (6) and error (5) types filterable beside them.
 */
describe.each(storageKinds())('sign-up reward logs on %s', (kind) => {
  let server: TestServer;
  let root: LoggedIn;

  const logsOf = (userId: number) =>
    server.ctx.storage.db
      .selectFrom('logs')
      .select(['type', 'quota', 'content', 'username'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  const register = async (username: string, affCode = '') => {
    const res = await server.client().post('/api/user/register', { username, password: `${username}-pass`, aff_code: affCode });
    expect(res.status, res.text).toBe(200);
    return login(server.client(), username, `${username}-pass`);
  };

  beforeAll(async () => {
    server = await startTestServer({ kind });
    root = await setupRootAndLogin(server);
    for (const [key, value] of [
      ['QuotaForNewUser', '500000'],
      ['QuotaForInviter', '70000'],
      ['QuotaForInvitee', '30000'],
    ]) {
      expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
    }
  });
  afterAll(async () => server?.stop());

  it('logs the new-user reward of a registration, in the same amount as the quota given', async () => {
    const ivan = await register('ivan');
    expect(await logsOf(ivan.userId)).toEqual([{ type: 4, quota: 500_000, content: '新用户注册赠送 ＄1.000000 额度', username: 'ivan' }]);
    expect((await ivan.client.get('/api/user/self')).body.data.quota).toBe(500_000);
  });

  it('logs both invite rewards when an invite code is used', async () => {
    const inviter = await register('host');
    const aff = (await inviter.client.get('/api/user/aff')).body.data as string;
    const guest = await register('guest', aff);
    expect(await logsOf(guest.userId)).toEqual([
      { type: 4, quota: 500_000, content: '新用户注册赠送 ＄1.000000 额度', username: 'guest' },
      { type: 4, quota: 30_000, content: '使用邀请码赠送 ＄0.060000 额度', username: 'guest' },
    ]);
    expect((await guest.client.get('/api/user/self')).body.data.quota).toBe(530_000);
    expect((await logsOf(inviter.userId)).at(-1)).toEqual({
      type: 4,
      quota: 70_000,
      content: '邀请用户赠送 ＄0.140000 额度',
      username: 'host',
    });
    expect((await inviter.client.get('/api/user/self')).body.data).toMatchObject({ aff_quota: 70_000, aff_count: 1 });

    // The user reads them in the usage log under the system filter, in their language.
    const mine = await guest.client.get('/api/log/self?type=4');
    expect(mine.body.data.items.map((item: { content: string }) => item.content)).toEqual([
      '使用邀请码赠送 ＄0.060000 额度',
      '新用户注册赠送 ＄1.000000 额度',
    ]);
    guest.client.language = 'en';
    const english = await guest.client.get('/api/log/self?type=4');
    expect(english.body.data.items.map((item: { content: string }) => item.content)).toEqual([
      'Invite-code bonus: $0.060000 of quota',
      'New-user bonus: $1.000000 of quota',
    ]);
  });

  it('logs the new-user reward of an account an admin creates', async () => {
    const created = await root.client.post('/api/user/', { username: 'made', password: 'made-pass-1' });
    expect(created.status, created.text).toBe(200);
    expect(await logsOf(created.body.data.id)).toEqual([
      { type: 4, quota: 500_000, content: '新用户注册赠送 ＄1.000000 额度', username: 'made' },
    ]);
  });

  it('writes nothing for a reward of 0, and nothing at all when a username is taken', async () => {
    expect((await root.client.put('/api/option/', { key: 'QuotaForNewUser', value: '0' })).status).toBe(200);
    const zero = await register('zero');
    expect(await logsOf(zero.userId)).toEqual([]);
    const before = await server.ctx.storage.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect((await root.client.post('/api/user/', { username: 'made', password: 'made-pass-1' })).status).toBe(409);
    const after = await server.ctx.storage.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect((await root.client.put('/api/option/', { key: 'QuotaForNewUser', value: '500000' })).status).toBe(200);
  });

  it('filters the usage log by the error (5) and refund (6) types', async () => {
    const now = Math.floor(Date.now() / 1000);
    const ivan = await server.ctx.storage.db.selectFrom('users').select('id').where('username', '=', 'ivan').executeTakeFirstOrThrow();
    await server.ctx.storage.db
      .insertInto('logs')
      .values({ user_id: ivan.id, username: 'ivan', created_at: now, type: 6, quota: 1234, content: 'refund row' })
      .execute();
    await server.ctx.storage.db
      .insertInto('logs')
      .values({ user_id: ivan.id, username: 'ivan', created_at: now, type: 5, content: 'error row' })
      .execute();
    const refunds = await root.client.get('/api/log/?type=6');
    expect(refunds.body.data.items.map((item: { content: string; type: number }) => [item.type, item.content])).toEqual([
      [6, 'refund row'],
    ]);
    const errors = await root.client.get('/api/log/?type=5&username=ivan');
    expect(errors.body.data.items.map((item: { content: string; type: number }) => [item.type, item.content])).toEqual([[5, 'error row']]);
  });
});
