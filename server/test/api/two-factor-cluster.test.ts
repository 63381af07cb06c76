import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';
import { enrolTotp, nextCode } from '../helpers/two-factor.js';

const redisUrl = process.env.TEST_REDIS_URL;

/**
 * Codes cannot be guessed or replayed, on every database, and across two instances sharing one
 * database and one Redis (when TEST_REDIS_URL is set; otherwise "both" instances are one server
 * with the memory cache): attempts are counted per account and IP in the shared cache, a code or
 * recovery code is accepted once however the requests race, and a passkey challenge issued by one
 * instance is spent once on either.
 */
describe.each(storageKinds())('second factors on %s', (kind) => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let root: LoggedIn;
  let counter = 0;

  async function startPair(env: Record<string, string>) {
    const shared: Record<string, string> = redisUrl
      ? { REDIS_CONN_STRING: redisUrl, REDIS_KEY_PREFIX: `mg-2fa-${randomBytes(4).toString('hex')}:` }
      : {};
    const first = await startTestServer({ database, env: { ...shared, ...env } });
    const second = redisUrl ? await startTestServer({ database, env: { ...shared, ...env } }) : first;
    return [first, second] as const;
  }

  /** A user with TOTP, and the first step of a sign-in done on each instance (clients holding the pending cookie). */
  async function userWithTotp() {
    counter += 1;
    const name = `${kind.slice(0, 2)}2fa${counter}`;
    const user = await createUserAndLogin(a, root.client, name);
    const { app, recoveryCodes } = await enrolTotp(user.client);
    const pendingOn = async (server: TestServer): Promise<ApiClient> => {
      const client = server.client();
      const res = await client.post('/api/user/login', { username: name, password: user.password });
      expect(res.body.data?.require_2fa, res.text).toBe(true);
      return client;
    };
    return { ...user, name, app, recoveryCodes, pendingOn };
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    [a, b] = await startPair({ TWO_FACTOR_RATE_LIMIT: '1000', TWO_FACTOR_IP_RATE_LIMIT: '1000' });
    root = await setupRootAndLogin(a);
  });
  afterAll(async () => {
    if (b !== a) await b?.stop();
    await a?.stop();
    await database?.drop();
  });

  it('accepts a TOTP code once when the same code races on both instances', async () => {
    const user = await userWithTotp();
    const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => user.pendingOn(i % 2 ? b : a)));
    const code = await nextCode(user.app);
    const answers = await Promise.all(clients.map((client) => client.post('/api/user/login/2fa', { code })));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    // Replayed later on the other instance: still refused.
    const late = await user.pendingOn(b);
    expect((await late.post('/api/user/login/2fa', { code })).body.message).toBe('验证码或备用码错误，请重试');
  });

  it('spends a recovery code once when it races on both instances', async () => {
    const user = await userWithTotp();
    const clients = await Promise.all(Array.from({ length: 6 }, (_, i) => user.pendingOn(i % 2 ? b : a)));
    const answers = await Promise.all(clients.map((client) => client.post('/api/user/login/2fa', { code: user.recoveryCodes[0] })));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    const row = await a.ctx.storage.db
      .selectFrom('two_fa_backup_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', user.userId)
      .where('is_used', '=', 1)
      .executeTakeFirstOrThrow();
    expect(Number(row.n)).toBe(1);
  });

  it('finishes an enrolment begun on the other instance, and a passkey ceremony too, spending the challenge once', async () => {
    counter += 1;
    const name = `${kind.slice(0, 2)}pk${counter}`;
    const user = await createUserAndLogin(a, root.client, name);
    const onB = b.client();
    onB.cookie = user.client.cookie;
    onB.userId = user.userId;
    const setup = await user.client.post('/api/user/2fa/setup');
    const enabled = await onB.post('/api/user/2fa/enable', { code: await nextCode({ secret: setup.body.data.secret, lastStep: 0 }) });
    expect(enabled.status, enabled.text).toBe(200);
    // Enabling ended the other sessions; the browser (now on B) carries the renewed cookie.
    user.client.cookie = onB.cookie;

    const origin = 'http://localhost:8443';
    expect((await root.client.put('/api/option/', { key: 'ServerAddress', value: origin })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'passkey.enabled', value: 'true' })).status).toBe(200);
    // The option change reaches the other instance through the bus.
    await expect.poll(() => b.ctx.options.bool('passkey.enabled')).toBe(true);
    const authenticator = new SoftAuthenticator(origin);
    const begin = await user.client.post('/api/user/passkey/register/begin');
    onB.cookie = user.client.cookie;
    expect(
      (await onB.post('/api/user/passkey/register/finish', { name: 'key', response: authenticator.register(begin.body.data) })).status,
    ).toBe(200);
    const signIn = await a.client().post('/api/user/passkey/login/begin');
    const response = authenticator.authenticate(signIn.body.data);
    const answers = await Promise.all([a, b, a, b].map((server) => server.client().post('/api/user/passkey/login/finish', { response })));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400, 400, 400]);
    const rows = await a.ctx.storage.db
      .selectFrom('passkey_credentials')
      .select(['counter', 'last_used_at'])
      .where('user_id', '=', user.userId)
      .execute();
    expect(rows).toEqual([{ counter: 1, last_used_at: expect.any(Number) }]);
  });

  it('answers the declared status, passkey list and factor changes on this database', async () => {
    counter += 1;
    const name = `${kind.slice(0, 2)}st${counter}`;
    const user = await createUserAndLogin(a, root.client, name);
    const { app } = await enrolTotp(user.client);
    const origin = 'http://localhost:8443';
    expect((await root.client.put('/api/option/', { key: 'ServerAddress', value: origin })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'passkey.enabled', value: 'true' })).status).toBe(200);
    const authenticator = new SoftAuthenticator(origin);
    const begin = await user.client.post('/api/user/passkey/register/begin');
    const registered = await user.client.post('/api/user/passkey/register/finish', {
      name: 'key',
      response: authenticator.register(begin.body.data),
    });
    expect(registered.status, registered.text).toBe(200);

    // Counts, bigints and the 0/1 column come back as the declared numbers and boolean on every database.
    const status = await user.client.get('/api/user/2fa/status');
    expect(status.status, status.text).toBe(200);
    expect(status.body.data).toEqual({
      enabled: true,
      enabled_at: expect.any(Number),
      backup_codes_remaining: 10,
      passkey_enabled: true,
      passkey_count: 1,
      required: false,
    });
    const list = await user.client.get('/api/user/passkey');
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: expect.any(Number),
        name: 'key',
        device_type: expect.any(String),
        backed_up: expect.any(Boolean),
        created_at: expect.any(Number),
        last_used_at: 0,
      },
    ]);
    const renamed = await user.client.put(`/api/user/passkey/${list.body.data[0].id}`, { name: 'renamed' });
    expect(renamed.status, renamed.text).toBe(200);
    const codes = await user.client.post('/api/user/2fa/backup_codes', { code: await nextCode(app) });
    expect(codes.status, codes.text).toBe(200);
    expect(codes.body.data.backup_codes).toHaveLength(10);

    expect((await root.client.delete(`/api/user/${user.userId}/passkey`)).status).toBe(200);
    expect((await root.client.delete(`/api/user/${user.userId}/2fa`)).status).toBe(200);
    const cleared = await a.ctx.storage.db.selectFrom('passkey_credentials').select('id').where('user_id', '=', user.userId).execute();
    expect(cleared).toEqual([]);
  });

  describe('attempt limits', () => {
    let la: TestServer;
    let lb: TestServer;
    beforeAll(async () => {
      [la, lb] = await startPair({ TWO_FACTOR_RATE_LIMIT: '3', TWO_FACTOR_IP_RATE_LIMIT: '5', TWO_FACTOR_RATE_LIMIT_DURATION: '600' });
    });
    afterAll(async () => {
      if (lb !== la) await lb?.stop();
      await la?.stop();
    });

    it('locks an account after TWO_FACTOR_RATE_LIMIT wrong codes on either instance, then the IP across accounts', async () => {
      const user = await userWithTotp();
      const pendingOn = async (server: TestServer) => {
        const client = server.client();
        await client.post('/api/user/login', { username: user.name, password: user.password });
        return client;
      };
      const onA = await pendingOn(la);
      const onB = await pendingOn(lb);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push((await (i % 2 ? onB : onA).post('/api/user/login/2fa', { code: i % 2 ? '000000' : 'zzzzz-zzzzz' })).status);
      expect(statuses).toEqual([400, 400, 400]);
      // Even the right code is refused now, on both instances, with Retry-After.
      const locked = await onB.post('/api/user/login/2fa', { code: await nextCode(user.app) });
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual({ success: false, message: '验证码尝试次数过多，请稍后再试', data: null });
      expect(locked.headers.get('retry-after')).toBe('600');
      expect((await onA.post('/api/user/login/2fa', { code: '123456' })).status).toBe(429);
      // The limit covers the signed-in routes too (disable needs a code).
      const signedIn = la.client();
      signedIn.cookie = user.client.cookie;
      signedIn.userId = user.userId;
      expect((await signedIn.post('/api/user/2fa/disable', { code: '123456' })).status).toBe(429);

      // The IP (all tests come from 127.0.0.1) has 3 wrong codes counted; two more on another account fill it.
      const other = await userWithTotp();
      const otherOnA = await la.client();
      await otherOnA.post('/api/user/login', { username: other.name, password: other.password });
      expect((await otherOnA.post('/api/user/login/2fa', { code: '000001' })).status).toBe(400);
      expect((await otherOnA.post('/api/user/login/2fa', { code: '000002' })).status).toBe(400);
      expect((await otherOnA.post('/api/user/login/2fa', { code: await nextCode(other.app) })).status).toBe(429);
    });

    it('does not count right codes: an account signs in many times in a row', async () => {
      // The IP is used up by the test above; a fresh pair has its own counts only with Redis prefixes.
      const [fa, fb] = await startPair({ TWO_FACTOR_RATE_LIMIT: '2', TWO_FACTOR_IP_RATE_LIMIT: '2' });
      try {
        const user = await userWithTotp();
        for (let i = 0; i < 4; i += 1) {
          const client = (i % 2 ? fb : fa).client();
          await client.post('/api/user/login', { username: user.name, password: user.password });
          expect((await client.post('/api/user/login/2fa', { code: user.recoveryCodes[i] })).status, `sign-in ${i + 1}`).toBe(200);
        }
      } finally {
        if (fb !== fa) await fb.stop();
        await fa.stop();
      }
    });
  });
});
