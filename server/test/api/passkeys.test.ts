import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { createUserAndLogin, login, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Passkeys through the API, with a software authenticator speaking WebAuthn's wire format. */
describe('passkeys', () => {
  let server: TestServer;
  let root: LoggedIn;
  let origin: string;
  let counter = 0;

  async function newUser() {
    counter += 1;
    const name = `pk${counter}`;
    return { name, ...(await createUserAndLogin(server, root.client, name)) };
  }

  /** Registers a passkey for a signed-in client; answers the finish response. */
  async function register(client: ApiClient, authenticator: SoftAuthenticator, name = '') {
    const begin = await client.post('/api/user/passkey/register/begin');
    expect(begin.status, begin.text).toBe(200);
    return client.post('/api/user/passkey/register/finish', { name, response: authenticator.register(begin.body.data) });
  }

  /** A passwordless sign-in on a fresh client. */
  async function passkeySignIn(authenticator: SoftAuthenticator) {
    const client = server.client();
    const begin = await client.post('/api/user/passkey/login/begin');
    expect(begin.status, begin.text).toBe(200);
    const response = authenticator.authenticate(begin.body.data);
    return { client, response, res: await client.post('/api/user/passkey/login/finish', { response }) };
  }

  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
    origin = server.url.replace('127.0.0.1', 'localhost');
  });
  afterAll(async () => server.stop());

  it('is off until the root turns it on, which needs ServerAddress', async () => {
    const user = await newUser();
    const off = await user.client.post('/api/user/passkey/register/begin');
    expect(off.status).toBe(403);
    expect(off.body.message).toBe('管理员未启用 Passkey 登录');
    expect((await server.client().post('/api/user/passkey/login/begin')).body.message).toBe('管理员未启用 Passkey 登录');
    const refused = await root.client.put('/api/option/', { key: 'passkey.enabled', value: 'true' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('请先填写服务器地址');
    expect((await root.client.put('/api/option/', { key: 'ServerAddress', value: `${origin}/` })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'passkey.enabled', value: 'true' })).status).toBe(200);
    expect((await user.client.get('/api/user/2fa/status')).body.data).toMatchObject({ passkey_enabled: true, passkey_count: 0 });
  });

  it('registers several passkeys, lists, renames and removes them; the relying party is ServerAddress, not the Host', async () => {
    const user = await newUser();
    const phone = new SoftAuthenticator(origin);
    const laptop = new SoftAuthenticator(origin);
    const begin = await user.client.post('/api/user/passkey/register/begin', undefined, { headers: { Host: 'evil.example' } });
    expect(begin.body.data.rp).toEqual({ id: 'localhost', name: 'ModelGate' });
    expect(begin.body.data.user.name).toBe(user.name);
    expect(begin.body.data.authenticatorSelection).toMatchObject({ residentKey: 'required' });
    const first = await user.client.post('/api/user/passkey/register/finish', { name: 'Phone', response: phone.register(begin.body.data) });
    expect(first.status, first.text).toBe(200);
    expect(first.body.message).toBe('Passkey 注册成功');
    // The second registration excludes the first credential.
    const again = await user.client.post('/api/user/passkey/register/begin');
    expect(again.body.data.excludeCredentials.map((item: { id: string }) => item.id)).toEqual([
      Buffer.from(phone.credentials[0]!.id).toString('base64url'),
    ]);
    expect(
      (await user.client.post('/api/user/passkey/register/finish', { name: '', response: laptop.register(again.body.data) })).status,
    ).toBe(200);

    const list = await user.client.get('/api/user/passkey');
    expect(list.body.data.map((item: { name: string }) => item.name)).toEqual(['Phone', 'Passkey 2']);
    expect(list.text).not.toMatch(/public_key|credential_id/);
    const [phoneRow, laptopRow] = list.body.data;
    expect((await user.client.put(`/api/user/passkey/${laptopRow.id}`, { name: '  Laptop ' })).body.message).toBe('Passkey 已重命名');
    expect((await user.client.put(`/api/user/passkey/${laptopRow.id}`, { name: '' })).body.message).toBe('请输入 Passkey 名称');
    expect((await user.client.put(`/api/user/passkey/${laptopRow.id}`, { name: 'x'.repeat(65) })).status).toBe(400);
    expect((await user.client.get('/api/user/passkey')).body.data[1].name).toBe('Laptop');

    // Someone else's passkey is not found.
    const other = await newUser();
    expect((await other.client.put(`/api/user/passkey/${phoneRow.id}`, { name: 'mine' })).status).toBe(404);
    expect((await other.client.delete(`/api/user/passkey/${phoneRow.id}`)).status).toBe(404);

    expect((await user.client.delete(`/api/user/passkey/${phoneRow.id}`)).body.message).toBe('Passkey 已删除');
    expect((await user.client.get('/api/user/passkey')).body.data.map((item: { name: string }) => item.name)).toEqual(['Laptop']);
    expect((await user.client.delete(`/api/user/passkey/${phoneRow.id}`)).status).toBe(404);
  });

  it('refuses a registration from another origin, a spent or foreign challenge, and the same authenticator twice', async () => {
    const user = await newUser();
    const evil = new SoftAuthenticator('http://evil.example');
    const begin = await user.client.post('/api/user/passkey/register/begin');
    const wrongOrigin = await user.client.post('/api/user/passkey/register/finish', { response: evil.register(begin.body.data) });
    expect(wrongOrigin.status).toBe(400);
    expect(wrongOrigin.body.message).toBe('Passkey 注册失败，请重试');
    // That challenge is spent even though the answer failed.
    const good = new SoftAuthenticator(origin);
    expect((await user.client.post('/api/user/passkey/register/finish', { response: good.register(begin.body.data) })).body.message).toBe(
      'Passkey 请求已过期，请重试',
    );
    // A challenge issued to another user.
    const other = await newUser();
    const foreign = await other.client.post('/api/user/passkey/register/begin');
    expect((await user.client.post('/api/user/passkey/register/finish', { response: good.register(foreign.body.data) })).body.message).toBe(
      'Passkey 请求已过期，请重试',
    );
    // A response replayed after success.
    const fresh = await user.client.post('/api/user/passkey/register/begin');
    const response = good.register(fresh.body.data);
    expect((await user.client.post('/api/user/passkey/register/finish', { response })).status).toBe(200);
    expect((await user.client.post('/api/user/passkey/register/finish', { response })).body.message).toBe('Passkey 请求已过期，请重试');
    // The same credential registered again (by this user, or by another): refused by the unique credential id.
    const twice = await user.client.post('/api/user/passkey/register/begin');
    expect(
      (await user.client.post('/api/user/passkey/register/finish', { response: good.register(twice.body.data, good.credentials.at(-1)) }))
        .body.message,
    ).toBe('该 Passkey 已注册');
    const byOther = await other.client.post('/api/user/passkey/register/begin');
    expect(
      (
        await other.client.post('/api/user/passkey/register/finish', {
          response: good.register(byOther.body.data, good.credentials.at(-1)),
        })
      ).body.message,
    ).toBe('该 Passkey 已注册');
    expect((await user.client.get('/api/user/passkey')).body.data).toHaveLength(1);
    // Garbage is a 400, never a 500.
    for (const body of [
      {},
      { response: { id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: '!!', attestationObject: 'a' } } },
      { response: { ...response, response: { ...response.response, attestationObject: 'AAAA' } } },
    ]) {
      expect((await user.client.post('/api/user/passkey/register/finish', body)).status).toBe(400);
    }
  });

  it('signs in with a passkey instead of the password, requiring user verification, each assertion once', async () => {
    const user = await newUser();
    const authenticator = new SoftAuthenticator(origin);
    expect((await register(user.client, authenticator, 'Key')).status).toBe(200);
    const { client, response, res } = await passkeySignIn(authenticator);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: '登录成功！', data: { id: user.userId, username: user.name } });
    client.userId = user.userId;
    expect((await client.get('/api/user/self')).status).toBe(200);
    expect((await user.client.get('/api/user/passkey')).body.data[0].last_used_at).toBeGreaterThan(0);
    // The same assertion again: its challenge is spent.
    const replay = await server.client().post('/api/user/passkey/login/finish', { response });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toBe('Passkey 请求已过期，请重试');
    // Without user verification, a passkey alone is one factor: refused.
    authenticator.userVerified = false;
    expect((await passkeySignIn(authenticator)).res.body.message).toBe('Passkey 验证失败，请重试');
    authenticator.userVerified = true;
    // An unknown credential, and a page on another origin.
    const stranger = new SoftAuthenticator(origin);
    const strangerBegin = await server.client().post('/api/user/passkey/login/begin');
    stranger.register({
      rp: { id: 'localhost', name: 'x' },
      user: { id: 'OTk5', name: 'x', displayName: 'x' },
      challenge: 'x',
      pubKeyCredParams: [],
    });
    expect(
      (await server.client().post('/api/user/passkey/login/finish', { response: stranger.authenticate(strangerBegin.body.data) })).body
        .message,
    ).toBe('Passkey 验证失败，请重试');
    authenticator.origin = 'http://evil.example';
    expect((await passkeySignIn(authenticator)).res.body.message).toBe('Passkey 验证失败，请重试');
    authenticator.origin = origin;
    // A banned user is refused.
    await root.client.post('/api/user/manage', { id: user.userId, action: 'disable' });
    const banned = await passkeySignIn(authenticator);
    expect(banned.res.status).toBe(403);
    expect(banned.client.cookie).toBe('');
  });

  it("serves as the second step after the password, with the user's own passkeys only", async () => {
    const user = await newUser();
    const authenticator = new SoftAuthenticator(origin);
    await register(user.client, authenticator);
    const client = server.client();
    const first = await client.post('/api/user/login', { username: user.name, password: user.password });
    expect(first.body).toEqual({ success: true, message: '请输入两步验证码', data: { require_2fa: true, totp: false, passkey: true } });
    expect(client.cookie).toBe('');
    expect((await server.client().post('/api/user/login/2fa/passkey/begin')).body.message).toBe('会话已过期，请重新登录');
    const begin = await client.post('/api/user/login/2fa/passkey/begin');
    expect(begin.body.data.allowCredentials.map((item: { id: string }) => item.id)).toEqual([
      Buffer.from(authenticator.credentials[0]!.id).toString('base64url'),
    ]);
    // Another user's passkey cannot finish this user's sign-in.
    const other = await newUser();
    const otherKey = new SoftAuthenticator(origin);
    await register(other.client, otherKey);
    expect(
      (
        await client.post('/api/user/login/2fa/passkey/finish', {
          response: otherKey.authenticate({ ...begin.body.data, allowCredentials: [] }),
        })
      ).body.message,
    ).toBe('Passkey 验证失败，请重试');
    const retry = await client.post('/api/user/login/2fa/passkey/begin');
    const done = await client.post('/api/user/login/2fa/passkey/finish', { response: authenticator.authenticate(retry.body.data) });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.id).toBe(user.userId);
    expect(client.cookie).toMatch(/^session=/);
    expect(client.pendingCookie).toBe('');
  });

  it('ends the other sessions when a passkey is added or removed, not when one is renamed', async () => {
    const user = await newUser();
    const other = await login(server.client(), user.name, user.password);
    await register(user.client, new SoftAuthenticator(origin));
    expect((await other.client.get('/api/user/self')).status).toBe(401);
    expect((await user.client.get('/api/user/self')).status).toBe(200);
    const id = (await user.client.get('/api/user/passkey')).body.data[0].id;
    const authenticator = new SoftAuthenticator(origin);
    authenticator.credentials.length = 0;
    const second = server.client();
    const { client: viaPasskey } = await (async () => {
      // Sign in a second browser with the password and a fresh passkey as second step.
      await register(user.client, authenticator);
      await second.post('/api/user/login', { username: user.name, password: user.password });
      const begin = await second.post('/api/user/login/2fa/passkey/begin');
      expect(
        (await second.post('/api/user/login/2fa/passkey/finish', { response: authenticator.authenticate(begin.body.data) })).status,
      ).toBe(200);
      second.userId = user.userId;
      return { client: second };
    })();
    expect((await user.client.put(`/api/user/passkey/${id}`, { name: 'renamed' })).status).toBe(200);
    expect((await viaPasskey.get('/api/user/self')).status).toBe(200);
    expect((await user.client.delete(`/api/user/passkey/${id}`)).status).toBe(200);
    expect((await viaPasskey.get('/api/user/self')).status).toBe(401);
    expect((await user.client.get('/api/user/self')).status).toBe(200);
  });

  it('lets an admin reset the passkeys of a lower-role user; checks the role on the server', async () => {
    const user = await newUser();
    await register(user.client, new SoftAuthenticator(origin));
    const admin = await createUserAndLogin(server, root.client, `pkadm${counter}`, 10);
    expect((await user.client.delete(`/api/user/${user.userId}/passkey`)).status).toBe(403);
    expect((await admin.client.delete(`/api/user/${root.userId}/passkey`)).status).toBe(403);
    const reset = await admin.client.delete(`/api/user/${user.userId}/passkey`);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.message).toBe('Passkey 已重置');
    expect((await user.client.get('/api/user/self')).status).toBe(401);
    expect((await admin.client.delete(`/api/user/${user.userId}/passkey`)).body.message).toBe('该用户尚未绑定 Passkey');
  });

  it('answers hostile input to every passkey route with a 4xx (passkeys on, which the bad-input sweep does not turn on)', async () => {
    const user = await newUser();
    const pending = server.client();
    await register(user.client, new SoftAuthenticator(origin));
    await pending.post('/api/user/login', { username: user.name, password: user.password });
    const bodies: unknown[] = [
      null,
      [],
      'x',
      {},
      { response: null },
      { response: [] },
      { response: { id: 1 } },
      { response: { id: 'a'.repeat(5000), rawId: 'a', type: 'public-key', response: {} } },
      {
        response: {
          id: 'a\u0000',
          rawId: 'a',
          type: 'public-key',
          response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
          clientExtensionResults: {},
        },
      },
      {
        response: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: {
            clientDataJSON: Buffer.from('{"challenge":{"a":1}}').toString('base64url'),
            authenticatorData: 'AA',
            signature: 'AA',
            userHandle: 'AA',
          },
          clientExtensionResults: { x: 1 },
        },
      },
      { name: 'x'.repeat(100), response: {} },
      { name: '\uD800' },
    ];
    const routes: Array<[ApiClient, string, string]> = [
      [server.client(), 'POST', '/api/user/passkey/login/finish'],
      [pending, 'POST', '/api/user/login/2fa/passkey/finish'],
      [user.client, 'POST', '/api/user/passkey/register/finish'],
      [user.client, 'PUT', '/api/user/passkey/1'],
      [user.client, 'PUT', '/api/user/passkey/2147483648'],
      [user.client, 'DELETE', '/api/user/passkey/abc'],
    ];
    for (const [client, method, path] of routes) {
      for (const body of bodies) {
        const res = await client.request(method, path, method === 'DELETE' ? undefined : body);
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBeLessThan(500);
      }
    }
  });

  it('ignores passkeys as a factor while passkeys are turned off', async () => {
    const user = await newUser();
    await register(user.client, new SoftAuthenticator(origin));
    expect((await root.client.put('/api/option/', { key: 'passkey.enabled', value: 'false' })).status).toBe(200);
    try {
      const res = await server.client().post('/api/user/login', { username: user.name, password: user.password });
      expect(res.body.message).toBe('登录成功！');
      expect((await server.client().post('/api/user/passkey/login/begin')).status).toBe(403);
    } finally {
      await root.client.put('/api/option/', { key: 'passkey.enabled', value: 'true' });
    }
  });
});
