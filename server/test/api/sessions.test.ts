import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { createUserAndLogin, login, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { settleBus } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

/**
 * Sessions are revocable: logout, an own password change, an admin's password reset, disable and
 * delete end the old cookies, on both of two instances sharing one database.
 */
describe.each(storageKinds())('revocable sessions on %s', (kind) => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let root: LoggedIn;
  let counter = 0;

  /** A copy of a signed-in client's cookie, as a thief or a second tab would keep it. */
  const copyOf = (server: TestServer, client: ApiClient): ApiClient => {
    const copy = server.client();
    copy.cookie = client.cookie;
    copy.userId = client.userId;
    return copy;
  };
  const selfStatus = async (client: ApiClient) => (await client.get('/api/user/self')).status;

  /** A new user signed in on A and, separately, on B. */
  async function userOnBothInstances() {
    counter += 1;
    const name = `sess${counter}`;
    const onA = await createUserAndLogin(a, root.client, name, 1);
    const onB = await login(b.client(), name, onA.password);
    expect(await selfStatus(onA.client)).toBe(200);
    expect(await selfStatus(onB.client)).toBe(200);
    return { name, password: onA.password, userId: onA.userId, onA: onA.client, onB: onB.client };
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    a = await startTestServer({ database });
    b = await startTestServer({ database });
    root = await setupRootAndLogin(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await database?.drop();
  });

  it('logout ends the session, and every other session of the user, on both instances', async () => {
    const user = await userOnBothInstances();
    const stale = copyOf(a, user.onA);
    const out = await user.onA.get('/api/user/logout');
    expect(out.status).toBe(200);
    expect(user.onA.cookie).toBe('');
    const res = await stale.get('/api/user/self');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, message: '未登录或登录已过期，请重新登录' });
    expect(await selfStatus(user.onB)).toBe(401);
    // Signing in again works, and a second logout with the stale cookie does not end the new session.
    const again = await login(b.client(), user.name, user.password);
    await stale.get('/api/user/logout');
    expect(await selfStatus(again.client)).toBe(200);
  });

  it('an own password change keeps this browser signed in and ends the other sessions', async () => {
    const user = await userOnBothInstances();
    const stale = copyOf(a, user.onA);
    const changed = await user.onA.put('/api/user/self', { password: 'brand-new-pass', original_password: user.password });
    expect(changed.status, changed.text).toBe(200);
    expect(await selfStatus(user.onA)).toBe(200);
    expect(await selfStatus(stale)).toBe(401);
    expect(await selfStatus(user.onB)).toBe(401);
    await login(b.client(), user.name, 'brand-new-pass');
    // Changing only the display name ends nothing.
    expect((await user.onA.put('/api/user/self', { display_name: 'renamed' })).status).toBe(200);
    expect(await selfStatus(user.onA)).toBe(200);
  });

  it("an admin's password reset ends the user's sessions; other edits do not", async () => {
    const user = await userOnBothInstances();
    expect((await root.client.put('/api/user/', { id: user.userId, remark: 'vip' })).status).toBe(200);
    expect(await selfStatus(user.onB)).toBe(200);
    const reset = await root.client.put('/api/user/', { id: user.userId, password: 'reset-by-admin' });
    expect(reset.status, reset.text).toBe(200);
    expect(await selfStatus(user.onA)).toBe(401);
    expect(await selfStatus(user.onB)).toBe(401);
    await login(a.client(), user.name, 'reset-by-admin');
  });

  it('disable ends the sessions with a 401, and enabling again does not bring them back', async () => {
    const user = await userOnBothInstances();
    expect((await root.client.post('/api/user/manage', { id: user.userId, action: 'disable' })).status).toBe(200);
    expect(await selfStatus(user.onA)).toBe(401);
    expect(await selfStatus(user.onB)).toBe(401);
    expect((await root.client.post('/api/user/manage', { id: user.userId, action: 'enable' })).status).toBe(200);
    expect(await selfStatus(user.onA)).toBe(401);
    expect(await selfStatus(user.onB)).toBe(401);
    const fresh = await login(b.client(), user.name, user.password);
    expect(await selfStatus(fresh.client)).toBe(200);
  });

  it('delete by an admin, and deleting oneself, end the sessions', async () => {
    const deleted = await userOnBothInstances();
    expect((await root.client.post('/api/user/manage', { id: deleted.userId, action: 'delete' })).status).toBe(200);
    expect(await selfStatus(deleted.onA)).toBe(401);
    expect(await selfStatus(deleted.onB)).toBe(401);

    const leaving = await userOnBothInstances();
    const stale = copyOf(a, leaving.onA);
    expect((await leaving.onA.delete('/api/user/self')).status).toBe(200);
    expect(await selfStatus(stale)).toBe(401);
    expect(await selfStatus(leaving.onB)).toBe(401);
  });

  it('a promotion keeps the session (the role is re-read on every request)', async () => {
    const user = await userOnBothInstances();
    expect((await user.onB.get('/api/user/')).status).toBe(403);
    expect((await root.client.post('/api/user/manage', { id: user.userId, action: 'promote' })).status).toBe(200);
    expect((await user.onB.get('/api/user/')).status).toBe(200);
  });

  it('the playground (/pg) refuses a revoked session too', async () => {
    const user = await userOnBothInstances();
    const stale = copyOf(a, user.onA);
    const play = (client: ApiClient) =>
      fetch(`${a.url}/pg/chat/completions`, {
        method: 'POST',
        headers: { cookie: client.cookie, 'new-api-user': String(client.userId), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const before = await play(stale);
    expect(before.status).not.toBe(401);
    await before.text();
    await user.onA.get('/api/user/logout');
    await settleBus(a.ctx);
    const after = await play(stale);
    expect(after.status).toBe(401);
    await after.text();
  });

  it('refuses a cookie of the old three-part format and a tampered version', async () => {
    const user = await userOnBothInstances();
    const value = user.onA.cookie.replace(/^session=/, '');
    const [id, version, expiresAt, mac] = value.split('.');
    const legacy = copyOf(a, user.onA);
    legacy.cookie = `session=${id}.${expiresAt}.${mac}`;
    expect(await selfStatus(legacy)).toBe(401);
    const bumped = copyOf(a, user.onA);
    bumped.cookie = `session=${id}.${Number(version) + 1}.${expiresAt}.${mac}`;
    expect(await selfStatus(bumped)).toBe(401);
  });
});
