import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { signInThrough, startGitHubServer } from '../helpers/oauth-servers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { auditRowsSince, lastAuditId } from './audit-helpers.js';

/** An admin who signs in through a third party (a local GitHub) is recorded like a password sign-in. */
describe.each(storageKinds())('audit of third-party sign-ins on %s', (kind) => {
  let github: Awaited<ReturnType<typeof startGitHubServer>>;
  let server: TestServer;
  let root: LoggedIn;

  beforeAll(async () => {
    github = await startGitHubServer('gh-client', 'gh-secret');
    server = await startTestServer({ kind, env: { GITHUB_OAUTH_BASE_URL: github.url, GITHUB_API_BASE_URL: github.url } });
    root = await setupRootAndLogin(server);
    for (const [key, value] of [
      ['ServerAddress', 'https://gate.example.com'],
      ['GitHubClientId', 'gh-client'],
      ['GitHubClientSecret', 'gh-secret'],
      ['GitHubOAuthEnabled', 'true'],
    ]) {
      expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await server?.stop();
    await github?.close();
  });

  it("records a GitHub sign-in once the account is an admin's, not while it is a common user's", async () => {
    const since = await lastAuditId(server);
    const first = await signInThrough(server.client(), 'github', github.issueCode({ id: 501, login: 'octoadmin' }));
    expect(first.status, first.text).toBe(200);
    expect(await auditRowsSince(server, since)).toEqual([]);
    expect((await root.client.post('/api/user/manage', { id: first.body.data.id, action: 'promote' })).status).toBe(200);
    const mark = await lastAuditId(server);
    expect((await signInThrough(server.client(), 'github', github.issueCode({ id: 501, login: 'octoadmin' }))).status).toBe(200);
    const rows = await auditRowsSince(server, mark);
    expect(rows.map((row) => [row.user_id, row.role, row.action, row.status, row.entity, row.method])).toEqual([
      [first.body.data.id, 10, 'sign_in', 200, 'session', 'GET'],
    ]);
    expect(rows[0]!.route).toMatch(/^\/api\/oauth\//);
  });
});
