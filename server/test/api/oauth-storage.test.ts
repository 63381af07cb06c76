import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { callOAuthCallback, fetchOAuthState, signInThrough, startGitHubServer } from '../helpers/oauth-servers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

describe.each(storageKinds())('third-party accounts on %s', (kind) => {
  let github: Awaited<ReturnType<typeof startGitHubServer>>;
  let server: TestServer;
  let root: LoggedIn;

  beforeAll(async () => {
    github = await startGitHubServer('id', 'secret');
    server = await startTestServer({
      kind,
      env: {
        GITHUB_OAUTH_BASE_URL: github.url,
        GITHUB_API_BASE_URL: github.url,
        ...(process.env.TEST_REDIS_URL ? { REDIS_CONN_STRING: process.env.TEST_REDIS_URL } : {}),
      },
    });
    root = await setupRootAndLogin(server);
    for (const [key, value] of [
      ['ServerAddress', server.url],
      ['GitHubClientId', 'id'],
      ['GitHubClientSecret', 'secret'],
      ['GitHubOAuthEnabled', 'true'],
    ]) {
      expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await server.stop();
    await github.close();
  });

  it('lets exactly one of two parallel binds of the same account land', async () => {
    const [ann, ben] = [await createUserAndLogin(server, root.client, 'ann'), await createUserAndLogin(server, root.client, 'ben')];
    const results = await Promise.all(
      [ann, ben].map((user) => signInThrough(user.client, 'github', github.issueCode({ id: 1, login: 'shared-gh' }))),
    );
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(results.find((res) => res.status === 409)?.body.message).toBe('该 GitHub 账户已被绑定');
    const owners = await server.ctx.storage.db.selectFrom('users').select('username').where('github_id', '=', 'shared-gh').execute();
    expect(owners).toHaveLength(1);
  });

  it('registers one user for parallel first sign-ins of the same account, unique usernames for different ones', async () => {
    const same = await Promise.all(
      [1, 2, 3].map(() => signInThrough(server.client(), 'github', github.issueCode({ id: 2, login: 'twin' }))),
    );
    expect(same.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(new Set(same.map((res) => res.body.data.id)).size).toBe(1);
    // Different GitHub accounts whose logins make the same username seed: each gets its own user.
    const logins = ['namesake', 'name~sake', 'name!sake'];
    const namesakes = await Promise.all(
      logins.map((login, i) => signInThrough(server.client(), 'github', github.issueCode({ id: 3 + i, login }))),
    );
    expect(namesakes.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(new Set(namesakes.map((res) => res.body.data.username)).size).toBe(3);
    expect(namesakes.every((res) => /^namesake\d*$/.test(res.body.data.username))).toBe(true);
    // A login differing only in case from a password user's name (the same username under MySQL's
    // collation): a user of its own, never a 500.
    const casey = await createUserAndLogin(server, root.client, 'casey');
    const cased = await signInThrough(server.client(), 'github', github.issueCode({ id: 6, login: 'Casey' }));
    expect(cased.status, cased.text).toBe(200);
    expect(cased.body.data.id).not.toBe(casey.userId);
    expect(cased.body.data.username).toMatch(/^Casey1?$/);
  });

  it.runIf(process.env.TEST_REDIS_URL)('finishes on another instance a sign-in whose state this one issued (Redis), once', async () => {
    const other = await startTestServer({
      kind,
      database: server.database,
      env: { GITHUB_OAUTH_BASE_URL: github.url, GITHUB_API_BASE_URL: github.url, REDIS_CONN_STRING: process.env.TEST_REDIS_URL ?? '' },
    });
    try {
      const browser = server.client();
      const { state, cookie } = await fetchOAuthState(browser);
      const elsewhere = other.client();
      const done = await callOAuthCallback(elsewhere, 'github', { code: github.issueCode({ id: 9, login: 'roamer' }), state }, cookie);
      expect(done.status, done.text).toBe(200);
      expect(done.body.data.username).toBe('roamer');
      const replay = await callOAuthCallback(browser, 'github', { code: github.issueCode({ id: 9, login: 'roamer' }), state }, cookie);
      expect(replay.status).toBe(400);
    } finally {
      await other.stop();
    }
  });

  it('keeps unbound users free of the unique check', async () => {
    await createUserAndLogin(server, root.client, 'cid');
    const unbound = await server.ctx.storage.db.selectFrom('users').select('id').where('github_id', '=', '').execute();
    expect(unbound.length).toBeGreaterThanOrEqual(3);
  });
});
