import { auditEntrySchema } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAuditEntry } from '../../src/audit/chain.js';
import { createUserAndLogin, login, rootPassword, rootUsername, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { enrolTotp, nextCode } from '../helpers/two-factor.js';
import { auditRowsSince, lastAuditId } from './audit-helpers.js';

/** Sign-ins in the trail, and reading it: the root only, filters, exports, bad queries. */
describe.each(storageKinds())('audit sign-ins and reading the trail on %s', (kind) => {
  let server: TestServer;
  let root: LoggedIn;
  let admin: LoggedIn & { password: string };
  let user: LoggedIn & { password: string };

  beforeAll(async () => {
    server = await startTestServer({ kind });
    root = await setupRootAndLogin(server);
    admin = await createUserAndLogin(server, root.client, 'signadmin', 10);
    user = await createUserAndLogin(server, root.client, 'signuser', 1);
  });
  afterAll(async () => server?.stop());

  it("records admins' sign-ins and failed ones with the IP; not a common user's nor unknown names", async () => {
    const since = await lastAuditId(server);
    await login(server.client(), 'signadmin', admin.password);
    expect((await server.client().post('/api/user/login', { username: 'signadmin', password: 'wrong-password' })).status).toBe(400);
    expect((await server.client().post('/api/user/login', { username: rootUsername, password: 'wrong-password' })).status).toBe(400);
    expect((await server.client().post('/api/user/login', { username: 'nobody-at-all', password: 'wrong-password' })).status).toBe(400);
    await login(server.client(), 'signuser', user.password);
    expect((await server.client().post('/api/user/login', { username: 'signuser', password: 'wrong-password' })).status).toBe(400);
    const rows = await auditRowsSince(server, since);
    expect(rows.map((row) => [row.username, row.action, row.status, row.route, row.entity, row.ip])).toEqual([
      ['signadmin', 'sign_in', 200, '/api/user/login', 'session', '127.0.0.1'],
      ['signadmin', 'sign_in_failed', 400, '/api/user/login', 'session', '127.0.0.1'],
      [rootUsername, 'sign_in_failed', 400, '/api/user/login', 'session', '127.0.0.1'],
    ]);
    expect(rows.map((row) => row.raw.before + row.raw.after).join('')).toBe('');
  });

  it('with a second factor: the first step, a wrong code and the right code', async () => {
    const totpAdmin = await createUserAndLogin(server, root.client, 'totpadmin', 10);
    const { app } = await enrolTotp(totpAdmin.client);
    const since = await lastAuditId(server);
    const fresh = server.client();
    expect((await fresh.post('/api/user/login', { username: 'totpadmin', password: totpAdmin.password })).body.data.require_2fa).toBe(true);
    expect((await fresh.post('/api/user/login/2fa', { code: '000000' })).status).toBe(400);
    expect((await fresh.post('/api/user/login/2fa', { code: await nextCode(app) })).status).toBe(200);
    const rows = await auditRowsSince(server, since);
    expect(rows.map((row) => [row.action, row.status, row.route])).toEqual([
      ['sign_in_first_step', 200, '/api/user/login'],
      ['sign_in_failed', 400, '/api/user/login/2fa'],
      ['sign_in', 200, '/api/user/login/2fa'],
    ]);
  });

  it('the root alone reads it: an admin gets 403, a user 403, anonymous 401 (on every audit route)', async () => {
    for (const path of ['/api/audit', '/api/audit/export?format=csv', '/api/audit/verify']) {
      expect((await admin.client.get(path)).status, path).toBe(403);
      expect((await user.client.get(path)).status, path).toBe(403);
      expect((await server.client().get(path)).status, path).toBe(401);
      expect((await root.client.get(path)).status, path).toBe(200);
    }
  });

  it('filters by who, what and when, newest first, paged', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = {
      user_id: 77,
      username: 'filterer',
      role: 10,
      ip: '10.0.0.1',
      method: 'PUT',
      route: '/api/channel/',
      before: '',
      after: '{}',
      status: 200,
    };
    await appendAuditEntry(server.ctx.storage, { ...base, created_at: now - 3000, entity: 'channel', entity_id: '5', action: 'update' });
    await appendAuditEntry(server.ctx.storage, { ...base, created_at: now - 2000, entity: 'channel', entity_id: '6', action: 'delete' });
    await appendAuditEntry(server.ctx.storage, {
      ...base,
      created_at: now - 1000,
      entity: 'option',
      entity_id: 'Notice',
      action: 'update',
      route: '/api/option/',
    });
    const page = async (query: string) => (await root.client.get(`/api/audit?${query}`)).body.data;
    expect((await page('username=filterer')).total).toBe(3);
    // Every entry answers in the shape the console reads (packages/shared), and nothing beside it.
    expect(
      auditEntrySchema
        .strict()
        .array()
        .safeParse((await page('username=filterer')).items).error,
    ).toBeUndefined();
    expect((await page('username=filterer')).items.map((row: { entity_id: string }) => row.entity_id)).toEqual(['Notice', '6', '5']);
    expect((await page('user_id=77&entity=channel')).total).toBe(2);
    expect((await page('username=filterer&action=delete')).items[0].entity_id).toBe('6');
    expect((await page('username=filterer&route=/api/option/')).total).toBe(1);
    expect(
      (await page(`username=filterer&start_timestamp=${now - 2500}&end_timestamp=${now - 1500}`)).items.map(
        (row: { entity_id: string }) => row.entity_id,
      ),
    ).toEqual(['6']);
    const paged = await page('username=filterer&p=2&page_size=2');
    expect([paged.total, paged.items.length, paged.items[0].entity_id]).toEqual([3, 1, '5']);
  });

  it('exports CSV with escaping and formula-safe cells, and JSON Lines, with the same filters', async () => {
    const now = Math.floor(Date.now() / 1000);
    const after = JSON.stringify({ name: '=HYPERLINK("http://x")', note: 'a,b\n"c"' });
    await appendAuditEntry(server.ctx.storage, {
      user_id: 78,
      username: '@exporter',
      role: 100,
      ip: '127.0.0.1',
      method: 'POST',
      route: '/api/channel/',
      entity: 'channel',
      entity_id: '-1',
      action: 'create',
      before: '',
      after,
      status: 200,
      created_at: now,
    });
    const csv = await root.client.get('/api/audit/export?format=csv&user_id=78');
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="audit.csv"');
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('id,created_at,user_id,username,role,ip,method,route,entity,entity_id,action,status,before,after,prev_hash,hash');
    expect(lines[1]).toContain(`,78,'@exporter,100,127.0.0.1,POST,/api/channel/,channel,'-1,create,200,,"${after.replace(/"/g, '""')}",`);
    expect(csv.text.split('\r\n').filter(Boolean)).toHaveLength(2);
    const jsonl = await root.client.get('/api/audit/export?format=jsonl&user_id=78');
    expect(jsonl.headers.get('content-type')).toContain('application/x-ndjson');
    const entries = jsonl.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ username: '@exporter', entity_id: '-1', before: null, after: { name: '=HYPERLINK("http://x")' } });
    // Every entry of the trail comes out of an unfiltered export.
    const all = await root.client.get('/api/audit/export?format=jsonl');
    expect(all.text.trim().split('\n')).toHaveLength((await auditRowsSince(server)).length);
  });

  it.each([
    '/api/audit?p=abc',
    '/api/audit?page_size=1000',
    '/api/audit?user_id=-1',
    '/api/audit?start_timestamp=9223372036854775808',
    '/api/audit?username=a%00b',
    `/api/audit?route=${'x'.repeat(300)}`,
    '/api/audit/export',
    '/api/audit/export?format=xml',
    '/api/audit/export?format=csv&end_timestamp=x',
  ])('answers a bad query with 400: %s', async (path) => {
    const res = await root.client.get(path);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it('the root’s own password is never in the trail', async () => {
    const rows = await auditRowsSince(server);
    expect(rows.map((row) => row.raw.before + row.raw.after).join('\n')).not.toContain(rootPassword);
  });
});
