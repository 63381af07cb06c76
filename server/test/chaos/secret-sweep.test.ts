import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { optionRegistry } from '../../src/options/registry.js';

/**
 * Secrets are never sent to anyone but the root. Every route the app registers (Fastify's onRoute
 * hook) is read by an admin (role 10) and by a user, with every id the setup made in the path and
 * the query. No answer may carry a secret option, a channel key, a password hash, a user's webhook
 * secret, a TOTP secret or another user's API key (a user sees their own key and webhook secret),
 * and no log line of the whole run (at debug level) may carry one. The root's explicit reveal
 * (POST /api/channel/:id/key) is the far side: it answers the channel key, so the marker is where
 * the sweep would find a leak.
 */

interface SweptRoute {
  method: string;
  url: string;
}

const secretOptions = Object.entries(optionRegistry)
  .filter(([, definition]) => 'secret' in definition && definition.secret)
  .map(([key]) => key);
const channelKey = 'sk-channel-key-marker-0001';
const webhookSecret = 'webhook-secret-marker-0001';
const totpSecret = 'JBSWY3DPEHPK3PXPMARKER0001';
/** A secret option's value: its marker. */
const optionMarker = (key: string) => `option-secret-marker-${key.replace(/[^A-Za-z]/g, '')}`;

describe.each(storageKinds())('secret sweep on %s', (kind) => {
  let server: TestServer;
  const routes: SweptRoute[] = [];
  let root: LoggedIn;
  let admin: LoggedIn;
  let user: LoggedIn;
  let userKey = '';
  let channelId = 0;
  const passwordHashes: string[] = [];
  /** Every line the server logged, at debug level, from start-up to the end of the sweep. */
  const logLines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      kind,
      env: { LOG_LEVEL: 'debug' },
      loggerStream: { write: (line: string) => void logLines.push(line) },
      onRoute: (route: RouteOptions) => {
        for (const method of [route.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, url: route.url });
      },
    });
    root = await setupRootAndLogin(server);
    admin = await createUserAndLogin(server, root.client, 'sweepadmin', 10);
    user = await createUserAndLogin(server, root.client, 'sweepuser', 1);
    for (const key of secretOptions) await server.ctx.options.set(key as never, optionMarker(key));
    const made = await root.client.post('/api/channel/', {
      name: 'secret-channel',
      type: 1,
      key: channelKey,
      models: ['gpt-4o'],
      base_url: 'http://127.0.0.1:9',
    });
    expect(made.status, made.text).toBe(200);
    channelId = made.body.data.ids[0];
    expect((await user.client.post('/api/token/', { name: 'user-token', remain_quota: 1000 })).status).toBe(200);
    userKey = ((await user.client.get('/api/token/')).body.data.items[0] as { key: string }).key;
    expect(
      (
        await user.client.put('/api/user/setting', {
          notify_type: 'webhook',
          webhook_url: 'https://hooks.example.com/u',
          webhook_secret: webhookSecret,
        })
      ).status,
    ).toBe(200);
    await server.ctx.storage.db
      .insertInto('two_fas')
      .values({ user_id: user.userId, secret: totpSecret, created_at: 0, updated_at: 0 })
      .execute();
    const rows = await server.ctx.storage.db.selectFrom('users').select('password').execute();
    passwordHashes.push(...rows.map((row) => row.password).filter((hash): hash is string => typeof hash === 'string' && hash.length > 20));
  });
  afterAll(async () => server?.stop());

  /** The secrets an answer carries, by name. */
  function secretsIn(text: string): string[] {
    const found = secretOptions.filter((key) => text.includes(optionMarker(key)));
    if (text.includes(channelKey)) found.push('channel key');
    if (text.includes(webhookSecret)) found.push('webhook secret');
    if (text.includes(totpSecret)) found.push('TOTP secret');
    if (userKey && text.includes(userKey)) found.push("the user's API key");
    if (passwordHashes.some((hash) => text.includes(hash))) found.push('a password hash');
    return found;
  }

  it('never answers an admin, or a user, with a secret that is not theirs, on any route, with any id', async () => {
    expect(secretOptions.length).toBeGreaterThan(10);
    expect(passwordHashes.length).toBeGreaterThanOrEqual(3);
    const ids = [...new Set(['1', '2', '3', String(channelId), String(user.userId), String(admin.userId), String(root.userId)])];
    const query = `id=${channelId}&user_id=${user.userId}&keyword=&p=1&page_size=100`;
    const sessionOf = (who: LoggedIn) => ({ cookie: who.client.cookie ?? '', 'new-api-user': String(who.userId) });
    // Reads only: what an admin's writes may do is the role tests' business; here every answer is read.
    const reads = routes.filter((route) => route.method === 'GET' && route.url !== '/api/user/logout');
    const probes = reads
      .flatMap((route) =>
        /:[A-Za-z_]+|\*$/.test(route.url) ? ids.map((id) => route.url.replace(/:[A-Za-z_]+/g, id).replace(/\*$/, id)) : [route.url],
      )
      .map((url) => `${url}?${query}`);
    /** Every answer to `who` that carries a secret beyond `own` (what is theirs to see). */
    const leaksTo = async (who: LoggedIn, own: string[]) => {
      const leaks: string[] = [];
      for (let start = 0; start < probes.length; start += 32) {
        await Promise.all(
          probes.slice(start, start + 32).map(async (url) => {
            const answer = await server.app.inject({ method: 'GET', url, headers: sessionOf(who) });
            const found = secretsIn(answer.body).filter((name) => !own.includes(name));
            if (found.length > 0) leaks.push(`GET ${url.split('?')[0]}: ${answer.statusCode} carries ${found.join(', ')}`);
          }),
        );
      }
      return leaks;
    };
    expect(probes.length).toBeGreaterThan(100);
    const toAdmin = await leaksTo(admin, []);
    expect(toAdmin, `${toAdmin.length} of ${probes.length} answers to the admin`).toEqual([]);
    // The user sees their own API key and webhook secret, and nothing else: not their password hash nor their TOTP secret.
    const toUser = await leaksTo(user, ["the user's API key", 'webhook secret']);
    expect(toUser, `${toUser.length} of ${probes.length} answers to the user`).toEqual([]);
    // Nor is a secret ever logged, setting them included.
    expect(logLines.length).toBeGreaterThan(100);
    expect(logLines.filter((line) => secretsIn(line).length > 0).map((line) => line.slice(0, 300))).toEqual([]);
    // The far side: the root's explicit reveal answers the key, and the user sees their own API key.
    const revealed = await root.client.post(`/api/channel/${channelId}/key`);
    expect(secretsIn(revealed.text)).toEqual(['channel key']);
    expect(secretsIn((await user.client.get('/api/token/')).text)).toEqual(["the user's API key"]);
  }, 300_000);

  it('no audit entry carries a secret: the root setting every secret option and a channel key, an admin a password', async () => {
    for (const key of secretOptions) {
      const set = await root.client.put('/api/option/', { key, value: optionMarker(key) });
      expect(set.status, `${key}: ${set.text}`).toBe(200);
    }
    expect((await root.client.put('/api/channel/', { id: channelId, key: channelKey })).status).toBe(200);
    expect((await admin.client.put('/api/user/', { id: user.userId, username: 'sweepuser', password: 'sweep-new-pass-1' })).status).toBe(
      200,
    );
    const rows = await server.ctx.storage.db.selectFrom('audit_logs').selectAll().execute();
    expect(rows.length).toBeGreaterThan(secretOptions.length);
    const text = rows.map((row) => JSON.stringify(row)).join('\n');
    expect(secretsIn(text)).toEqual([]);
    expect(text).not.toContain('sweep-new-pass-1');
  });
});
