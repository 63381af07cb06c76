import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { callOAuthCallback, fetchOAuthState } from '../helpers/oauth-servers.js';
import { authorizeAs, startOidcServer, type OidcServer } from '../helpers/oidc-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('OIDC sign-in against a real OpenID provider (oidc-provider)', () => {
  let server: TestServer;
  let idp: OidcServer;
  let root: LoggedIn;
  let endpoints: { authorization_endpoint: string; token_endpoint: string; userinfo_endpoint: string };
  const setOption = async (key: string, value: string) => {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, `${key}: ${res.text}`).toBe(200);
  };
  /** The public address the gateway is configured with; the test server listens elsewhere (server.url). */
  const serverAddress = 'https://gate.example.com';
  /** The authorize URL exactly as the console's login button builds it (redirect_uri from status.server_address). */
  const authorizeUrl = (state: string) => {
    const url = new URL(endpoints.authorization_endpoint);
    url.searchParams.set('client_id', 'modelgate');
    url.searchParams.set('redirect_uri', `${serverAddress}/oauth/oidc`);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', 'openid profile email');
    url.searchParams.set('state', state);
    return url.toString();
  };
  /** Login button → provider's login and consent pages → back with code, state and iss. */
  const signInAs = async (client: ApiClient, login: string) => {
    const { state, cookie } = await fetchOAuthState(client);
    const back = await authorizeAs(authorizeUrl(state), login);
    const query = Object.fromEntries(back.searchParams);
    const res = await callOAuthCallback(client, 'oidc', query, cookie);
    if (res.status === 200 && res.body.message !== 'bind') client.userId = res.body.data.id;
    return { res, query, cookie };
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    idp = await startOidcServer({
      clientId: 'modelgate',
      clientSecret: 'oidc-secret',
      redirectUris: [`${serverAddress}/oauth/oidc`],
      accounts: { alice: { preferred_username: 'alice', name: 'Alice Liddell', email: 'alice@idp.test' } },
    });
    endpoints = (await (await fetch(idp.wellKnown)).json()) as typeof endpoints;
    root = await setupRootAndLogin(server);
    await setOption('ServerAddress', serverAddress);
    await setOption('oidc.well_known', idp.wellKnown);
    await setOption('oidc.client_id', 'modelgate');
    await setOption('oidc.client_secret', 'oidc-secret');
    await setOption('oidc.authorization_endpoint', endpoints.authorization_endpoint);
    await setOption('oidc.token_endpoint', endpoints.token_endpoint);
    await setOption('oidc.user_info_endpoint', endpoints.userinfo_endpoint);
    await setOption('oidc.enabled', 'true');
  });
  afterAll(async () => {
    await server.stop();
    await idp.close();
  });

  it('registers and signs in through discovery, code exchange, a verified ID token and UserInfo', async () => {
    const client = server.client();
    const { res } = await signInAs(client, 'alice');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: '登录成功！',
      data: { username: 'alice', display_name: 'Alice Liddell', role: 1 },
    });
    expect((await client.get('/api/user/self')).body.data).toMatchObject({ oidc_id: 'alice', username: 'alice' });
    // The same subject signs in as the same user next time.
    const again = await signInAs(server.client(), 'alice');
    expect(again.res.body.data.id).toBe(res.body.data.id);
  });

  it('exchanges the code with the ServerAddress redirect URI whatever Host and X-Forwarded-Host say (the provider checks it)', async () => {
    const client = server.client();
    client.headers = { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example:8443', 'x-forwarded-proto': 'http' };
    const { res } = await signInAs(client, 'spoofed');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.username).toBe('spoofed');
  });

  it('refuses the callback while ServerAddress is empty, before the code is exchanged', async () => {
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    const back = await authorizeAs(authorizeUrl(state), 'nadia');
    await setOption('ServerAddress', '');
    try {
      const res = await callOAuthCallback(client, 'oidc', Object.fromEntries(back.searchParams), cookie);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, message: '管理员未设置服务器地址，无法通过 GitHub、OIDC 或 Linux DO 登录', data: null });
    } finally {
      await setOption('ServerAddress', serverAddress);
    }
    // Neither the state nor the code was spent.
    const done = await callOAuthCallback(client, 'oidc', Object.fromEntries(back.searchParams), cookie);
    expect(done.status, done.text).toBe(200);
  });

  it('refuses a code used twice (the provider answers invalid_grant) with a 400', async () => {
    const client = server.client();
    const { res, query } = await signInAs(client, 'bob');
    expect(res.status, res.text).toBe(200);
    const { state, cookie } = await fetchOAuthState(client);
    const reused = await callOAuthCallback(client, 'oidc', { ...query, state }, cookie);
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({ success: false, message: 'OIDC 授权码无效或已过期，请重新登录', data: null });
  });

  it('refuses an invalid code, a wrong state and a replayed callback', async () => {
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    const invalid = await callOAuthCallback(client, 'oidc', { code: 'made-up-code', state, iss: idp.issuer }, cookie);
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toBe('OIDC 授权码无效或已过期，请重新登录');

    const fresh = await fetchOAuthState(client);
    const back = await authorizeAs(authorizeUrl(fresh.state), 'carol');
    const query = Object.fromEntries(back.searchParams);
    const wrongState = await callOAuthCallback(client, 'oidc', { ...query, state: 'a'.repeat(32) }, fresh.cookie);
    expect(wrongState.status).toBe(400);
    expect(wrongState.body.message).toBe('state 无效、已使用或已过期，请重新发起登录');
    expect((await callOAuthCallback(client, 'oidc', query, fresh.cookie)).status).toBe(200);
    const replay = await callOAuthCallback(client, 'oidc', query, fresh.cookie);
    expect(replay.status).toBe(400);
    expect(replay.body.message).toBe('state 无效、已使用或已过期，请重新发起登录');
  });

  it('refuses an expired code with a 400', async () => {
    idp.codeTtl.seconds = 1;
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    const back = await authorizeAs(authorizeUrl(state), 'grace');
    idp.codeTtl.seconds = 60;
    // The code lives one second (the provider counts whole seconds): wait until it is surely gone.
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const res = await callOAuthCallback(client, 'oidc', Object.fromEntries(back.searchParams), cookie);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('OIDC 授权码无效或已过期，请重新登录');
  });

  it('refuses an authorization response from another issuer (RFC 9207 iss check)', async () => {
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    const back = await authorizeAs(authorizeUrl(state), 'dave');
    const res = await callOAuthCallback(client, 'oidc', { ...Object.fromEntries(back.searchParams), iss: 'http://evil.test' }, cookie);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('OIDC 登录校验失败，请重新登录');
  });

  it('binds the OIDC account of a signed-in user and unbinds it', async () => {
    const eve = await createUserAndLogin(server, root.client, 'eve');
    const { res } = await signInAs(eve.client, 'eve-at-idp');
    expect(res.body).toEqual({ success: true, message: 'bind', data: null });
    expect((await eve.client.get('/api/user/self')).body.data.oidc_id).toBe('eve-at-idp');
    const taken = await signInAs(root.client, 'eve-at-idp');
    expect(taken.res.status).toBe(409);
    expect(taken.res.body.message).toBe('该 OIDC 账户已被绑定');
    expect((await eve.client.delete('/api/oauth/oidc/bind')).status).toBe(200);
    expect((await eve.client.get('/api/user/self')).body.data.oidc_id).toBe('');
  });

  it('answers a wrong client secret and an unreachable well-known URL with a 400', async () => {
    await setOption('oidc.client_secret', 'wrong-secret');
    const wrongSecret = await signInAs(server.client(), 'frank');
    expect(wrongSecret.res.status).toBe(400);
    await setOption('oidc.client_secret', 'oidc-secret');
    await setOption('oidc.well_known', 'http://127.0.0.1:1/.well-known/openid-configuration');
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    const res = await callOAuthCallback(client, 'oidc', { code: 'x', state }, cookie);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('获取 OIDC 配置失败，请检查网络状况和 Well-Known URL 是否正确');
    await setOption('oidc.well_known', idp.wellKnown);
  });
});
