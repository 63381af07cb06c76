import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { callOAuthCallback, fetchOAuthState, signInThrough, startGitHubServer, startLinuxDoServer } from '../helpers/oauth-servers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { loadConfig } from '../../src/config.js';

describe('provider base URLs', () => {
  it('default to the real services, drop a trailing slash and refuse what is not http(s)', () => {
    expect(loadConfig({}).oauthEndpoints).toEqual({
      githubOAuth: 'https://github.com',
      githubApi: 'https://api.github.com',
      linuxDo: 'https://connect.linux.do',
    });
    expect(loadConfig({ LINUX_DO_BASE_URL: 'http://127.0.0.1:9/' }).oauthEndpoints.linuxDo).toBe('http://127.0.0.1:9');
    expect(() => loadConfig({ GITHUB_API_BASE_URL: 'file:///etc/passwd' })).toThrow(/GITHUB_API_BASE_URL must be an http/);
  });
});

describe('GitHub and Linux DO sign-in against local provider servers', () => {
  let github: Awaited<ReturnType<typeof startGitHubServer>>;
  let linuxdo: Awaited<ReturnType<typeof startLinuxDoServer>>;
  let server: TestServer;
  let root: LoggedIn;
  const setOption = async (key: string, value: string) => {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, `${key}: ${res.text}`).toBe(200);
  };

  beforeAll(async () => {
    github = await startGitHubServer('gh-client', 'gh-secret');
    linuxdo = await startLinuxDoServer('ld-client', 'ld-secret');
    // TRUST_PROXY on: even a proxy's X-Forwarded-Host must not reach a redirect URI.
    server = await startTestServer({
      env: {
        GITHUB_OAUTH_BASE_URL: github.url,
        GITHUB_API_BASE_URL: github.url,
        LINUX_DO_BASE_URL: `${linuxdo.url}/`,
        TRUST_PROXY: 'true',
      },
    });
    root = await setupRootAndLogin(server);
    await setOption('ServerAddress', 'https://gate.example.com/');
    await setOption('GitHubClientId', 'gh-client');
    await setOption('GitHubClientSecret', 'gh-secret');
    await setOption('GitHubOAuthEnabled', 'true');
    await setOption('LinuxDOClientId', 'ld-client');
    await setOption('LinuxDOClientSecret', 'ld-secret');
    await setOption('LinuxDOOAuthEnabled', 'true');
    await setOption('QuotaForNewUser', '500');
    await setOption('QuotaForInviter', '70');
    await setOption('QuotaForInvitee', '30');
  });
  afterAll(async () => {
    await server.stop();
    await github.close();
    await linuxdo.close();
  });

  it('issues a state in data and binds it to the browser with an HttpOnly cookie', async () => {
    const res = await server.client().get('/api/oauth/state');
    expect(res.body).toMatchObject({ success: true, message: '' });
    expect(res.body.data).toMatch(/^[0-9a-f]{32}$/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('oauth_state=')) ?? '';
    expect(cookie).toContain(`oauth_state=${res.body.data}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect((await server.client().get(`/api/oauth/state?aff=${'x'.repeat(40)}`)).status).toBe(400);
  });

  it('registers a new user from a GitHub account: username from the login, QuotaForNewUser, invite rewards', async () => {
    const inviterAff = (await root.client.get('/api/user/aff')).body.data as string;
    const before = (await root.client.get('/api/user/self')).body.data;
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client, inviterAff);
    const code = github.issueCode({ id: 101, login: 'octocat', name: 'The Octocat' });
    const res = await callOAuthCallback(client, 'github', { code, state }, cookie);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: '登录成功！',
      data: { username: 'octocat', display_name: 'The Octocat', role: 1, status: 1 },
    });
    expect(res.body.data).not.toHaveProperty('password');
    client.userId = res.body.data.id;
    const self = (await client.get('/api/user/self')).body.data;
    expect(self).toMatchObject({ github_id: 'octocat', quota: 530, inviter_id: root.userId });
    const after = (await root.client.get('/api/user/self')).body.data;
    expect(after.aff_count).toBe(before.aff_count + 1);
    expect(after.aff_quota).toBe(before.aff_quota + 70);
    // The gateway sent the client credentials and the code the way GitHub expects them.
    const tokenCall = github.calls.find((c) => c.path === '/login/oauth/access_token');
    expect(JSON.parse(tokenCall?.body ?? '{}')).toEqual({ client_id: 'gh-client', client_secret: 'gh-secret', code });
    expect(tokenCall?.headers.accept).toBe('application/json');
  });

  it('signs the same GitHub account in again as the same user', async () => {
    const client = server.client();
    const res = await signInThrough(client, 'github', github.issueCode({ id: 101, login: 'octocat' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.username).toBe('octocat');
    expect((await client.get('/api/user/self')).status).toBe(200);
  });

  it('makes a taken username unique', async () => {
    await createUserAndLogin(server, root.client, 'hubber');
    const res = await signInThrough(server.client(), 'github', github.issueCode({ id: 102, login: 'hubber' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.username).toBe('hubber1');
    const long = await signInThrough(server.client(), 'github', github.issueCode({ id: 103, login: 'a-very-long-login-name' }));
    expect(long.body.data.username).toBe('a-very-long-');
  });

  it('refuses a wrong, missing, foreign or reused state with a 400 and a clear message', async () => {
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    const wrong = await callOAuthCallback(
      client,
      'github',
      { code: github.issueCode({ id: 104, login: 'x' }), state: 'f'.repeat(32) },
      cookie,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ success: false, message: 'state 无效、已使用或已过期，请重新发起登录', data: null });
    // The state is bound to the browser that asked for it.
    const other = await callOAuthCallback(server.client(), 'github', { code: github.issueCode({ id: 104, login: 'x' }), state }, '');
    expect(other.status).toBe(400);
    expect((await callOAuthCallback(client, 'github', { code: 'c', state: '' }, cookie)).status).toBe(400);
    const first = await callOAuthCallback(client, 'github', { code: github.issueCode({ id: 104, login: 'x' }), state }, cookie);
    expect(first.status, first.text).toBe(200);
    const reused = await callOAuthCallback(client, 'github', { code: github.issueCode({ id: 104, login: 'x' }), state }, cookie);
    expect(reused.status).toBe(400);
    expect(reused.body.message).toBe('state 无效、已使用或已过期，请重新发起登录');
  });

  it('refuses an expired or invalid code with a 400 and spends the state', async () => {
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    const res = await callOAuthCallback(client, 'github', { code: 'not-a-code', state }, cookie);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: 'GitHub 授权码无效或已过期，请重新登录', data: null });
    const used = github.issueCode({ id: 105, login: 'y' });
    expect((await signInThrough(server.client(), 'github', used)).status).toBe(200);
    expect((await signInThrough(server.client(), 'github', used)).status).toBe(400);
  });

  it('answers bad input with 4xx, never a 500', async () => {
    const client = server.client();
    expect((await client.get('/api/oauth/github')).status).toBe(400);
    expect((await client.get(`/api/oauth/github?code=${'c'.repeat(2000)}&state=x`)).status).toBe(400);
    expect((await client.get('/api/oauth/github?code=a&code=b&state=x')).status).toBe(400);
    expect((await client.get('/api/oauth/unknown?code=a&state=x')).status).toBe(400);
  });

  it('binds GitHub to a signed-in user (message bind), one account per user and one user per account', async () => {
    const ivy = await createUserAndLogin(server, root.client, 'ivy');
    const bound = await signInThrough(ivy.client, 'github', github.issueCode({ id: 201, login: 'ivy-gh' }));
    expect(bound.body).toEqual({ success: true, message: 'bind', data: null });
    expect((await ivy.client.get('/api/user/self')).body.data.github_id).toBe('ivy-gh');
    // Signing in with that GitHub account now signs in ivy.
    const signedIn = await signInThrough(server.client(), 'github', github.issueCode({ id: 201, login: 'ivy-gh' }));
    expect(signedIn.body.data).toMatchObject({ id: ivy.userId, username: 'ivy' });
    const second = await signInThrough(ivy.client, 'github', github.issueCode({ id: 202, login: 'ivy-other' }));
    expect(second.status).toBe(409);
    expect(second.body.message).toBe('你已绑定了一个 GitHub 账户，请先解绑');
    const taken = await signInThrough(root.client, 'github', github.issueCode({ id: 201, login: 'ivy-gh' }));
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe('该 GitHub 账户已被绑定');
    // Unbinding frees it for someone else.
    expect((await ivy.client.delete('/api/oauth/github/bind')).body).toEqual({ success: true, message: '解绑成功', data: null });
    expect((await ivy.client.delete('/api/oauth/github/bind')).status).toBe(400);
    expect((await signInThrough(root.client, 'github', github.issueCode({ id: 201, login: 'ivy-gh' }))).body.message).toBe('bind');
    expect((await root.client.delete('/api/oauth/github/bind')).status).toBe(200);
  });

  it('refuses banned and deleted users with a clear message', async () => {
    const banned = await signInThrough(server.client(), 'github', github.issueCode({ id: 301, login: 'banme' }));
    await root.client.post('/api/user/manage', { id: banned.body.data.id, action: 'disable' });
    const again = await signInThrough(server.client(), 'github', github.issueCode({ id: 301, login: 'banme' }));
    expect(again.status).toBe(403);
    expect(again.body.message).toBe('用户已被封禁');
    const goner = server.client();
    expect((await signInThrough(goner, 'github', github.issueCode({ id: 302, login: 'goner' }))).status).toBe(200);
    expect((await goner.delete('/api/user/self')).status).toBe(200);
    const after = await signInThrough(server.client(), 'github', github.issueCode({ id: 302, login: 'goner' }));
    expect(after.status).toBe(403);
    expect(after.body.message).toBe('该账户已注销，无法登录');
  });

  it('refuses sign-up when registration is off, sign-in when the provider is off', async () => {
    await setOption('RegisterEnabled', 'false');
    const closed = await signInThrough(server.client(), 'github', github.issueCode({ id: 401, login: 'late' }));
    expect(closed.status).toBe(403);
    expect(closed.body.message).toBe('管理员关闭了新用户注册');
    // An existing binding still signs in.
    expect((await signInThrough(server.client(), 'github', github.issueCode({ id: 101, login: 'octocat' }))).status).toBe(200);
    await setOption('RegisterEnabled', 'true');
    await setOption('GitHubOAuthEnabled', 'false');
    const off = await signInThrough(server.client(), 'github', github.issueCode({ id: 101, login: 'octocat' }));
    expect(off.status).toBe(403);
    expect(off.body.message).toBe('管理员未开启通过 GitHub 登录以及注册');
    await setOption('GitHubOAuthEnabled', 'true');
  });

  it('signs in with Linux DO: Basic client auth, form body, redirect_uri, trust level', async () => {
    const client = server.client();
    const res = await signInThrough(client, 'linuxdo', linuxdo.issueCode({ id: 9001, username: 'neo', name: 'Neo' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ username: 'neo', display_name: 'Neo' });
    expect((await client.get('/api/user/self')).body.data.linux_do_id).toBe('9001');
    const tokenCall = linuxdo.calls.find((c) => c.path === '/oauth2/token');
    const form = new URLSearchParams(tokenCall?.body);
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('redirect_uri')).toBe('https://gate.example.com/oauth/linuxdo');
    await setOption('LinuxDOMinimumTrustLevel', '2');
    const low = await signInThrough(server.client(), 'linuxdo', linuxdo.issueCode({ id: 9002, username: 'newbie', trust_level: 1 }));
    expect(low.status).toBe(403);
    expect(low.body.message).toBe('Linux DO 信任等级未达到管理员设置的最低信任等级');
    await setOption('LinuxDOMinimumTrustLevel', '0');
    const bad = await signInThrough(server.client(), 'linuxdo', 'bogus');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Linux DO 授权码无效或已过期，请重新登录');
  });

  it('sends ServerAddress as the redirect URI whatever Host and X-Forwarded-Host say', async () => {
    const client = server.client();
    client.headers = { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example:8443', 'x-forwarded-proto': 'http' };
    const calls = linuxdo.calls.length;
    const res = await signInThrough(client, 'linuxdo', linuxdo.issueCode({ id: 9003, username: 'spoofed' }));
    expect(res.status, res.text).toBe(200);
    const sent = linuxdo.calls.slice(calls).find((c) => c.path === '/oauth2/token');
    expect(new URLSearchParams(sent?.body).get('redirect_uri')).toBe('https://gate.example.com/oauth/linuxdo');
    expect(
      linuxdo.calls
        .slice(calls)
        .map((c) => c.body)
        .join(''),
    ).not.toContain('evil.example');
  });

  it('refuses the redirect sign-ins while ServerAddress is empty, before a state is issued or a code exchanged', async () => {
    const client = server.client();
    const { state, cookie } = await fetchOAuthState(client);
    await setOption('ServerAddress', '');
    const message = '管理员未设置服务器地址，无法通过 GitHub、OIDC 或 Linux DO 登录';
    try {
      const asked = await server
        .client()
        .get('/api/oauth/state', { headers: { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example' } });
      expect(asked.status).toBe(403);
      expect(asked.body).toEqual({ success: false, message, data: null });
      expect(asked.headers.getSetCookie().some((c) => c.startsWith('oauth_state='))).toBe(false);
      const calls = { github: github.calls.length, linuxdo: linuxdo.calls.length };
      for (const provider of ['github', 'linuxdo'] as const) {
        const code =
          provider === 'github' ? github.issueCode({ id: 501, login: 'late' }) : linuxdo.issueCode({ id: 501, username: 'late' });
        const res = await callOAuthCallback(client, provider, { code, state }, cookie);
        expect(res.status, provider).toBe(403);
        expect(res.body, provider).toEqual({ success: false, message, data: null });
      }
      // A signed-in user's bind goes through the same callback.
      const { client: rootBrowser } = root;
      expect((await callOAuthCallback(rootBrowser, 'github', { code: 'c', state }, cookie)).body.message).toBe(message);
      expect({ github: github.calls.length, linuxdo: linuxdo.calls.length }).toEqual(calls);
    } finally {
      await setOption('ServerAddress', 'https://gate.example.com');
    }
    // Refused before the state was spent: it still finishes the sign-in.
    const done = await callOAuthCallback(client, 'github', { code: github.issueCode({ id: 502, login: 'patient' }), state }, cookie);
    expect(done.status, done.text).toBe(200);
  });

  it('answers a 400 naming the provider when it cannot be reached', async () => {
    await github.close();
    const res = await signInThrough(server.client(), 'github', 'any');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('无法连接到 GitHub，请稍后再试');
  });

  it('lets only a signed-in user unbind, and only known providers', async () => {
    expect((await server.client().delete('/api/oauth/github/bind')).status).toBe(401);
    expect((await root.client.delete('/api/oauth/email/bind')).status).toBe(400);
  });
});
