import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { enrolTotp } from '../helpers/two-factor.js';
import { lastAuditId, onlyRowSince } from './audit-helpers.js';

/** What each kind of administration writes to the trail: before, after, and never a secret. */
describe.each(storageKinds())('audit entries of changes on %s', (kind) => {
  let server: TestServer;
  let root: LoggedIn;
  let admin: LoggedIn;
  let user: LoggedIn & { password: string };

  beforeAll(async () => {
    server = await startTestServer({ kind });
    root = await setupRootAndLogin(server);
    admin = await createUserAndLogin(server, root.client, 'auditadmin', 10);
    user = await createUserAndLogin(server, root.client, 'audituser', 1);
  });
  afterAll(async () => server?.stop());

  /** Runs a step and answers the one audit row it wrote. */
  async function step(run: () => Promise<{ status: number; text: string }>, status = 200) {
    const since = await lastAuditId(server);
    const res = await run();
    expect(res.status, res.text).toBe(status);
    return onlyRowSince(server, since);
  }

  it('an option change records who, from where, the option and its value before and after', async () => {
    const row = await step(() => admin.client.put('/api/option/', { key: 'Notice', value: 'maintenance tonight' }));
    expect(row).toMatchObject({
      user_id: admin.userId,
      username: 'auditadmin',
      role: 10,
      ip: '127.0.0.1',
      method: 'PUT',
      route: '/api/option/',
      entity: 'option',
      entity_id: 'Notice',
      action: 'update',
      status: 200,
    });
    expect(row.after).toEqual({ name: 'Notice', value: 'maintenance tonight' });
    const again = await step(() => admin.client.put('/api/option/', { key: 'Notice', value: 'done' }));
    expect(again.before).toEqual({ name: 'Notice', value: 'maintenance tonight' });
    expect(again.after).toEqual({ name: 'Notice', value: 'done' });
  });

  it('groups and prices are options named as such; a secret option records only that it changed', async () => {
    const group = await step(() =>
      admin.client.put('/api/option/', { key: 'GroupRatio', value: JSON.stringify({ default: 1, vip: 0.8 }) }),
    );
    expect(group).toMatchObject({ entity: 'group', entity_id: 'GroupRatio' });
    expect(JSON.parse(group.after.value)).toEqual({ default: 1, vip: 0.8 });
    const price = await step(() => admin.client.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'gpt-x': 0.5 }) }));
    expect(price).toMatchObject({ entity: 'price', entity_id: 'ModelPrice' });
    const secret = await step(() => root.client.put('/api/option/', { key: 'SMTPToken', value: 'smtp-secret-value-1' }));
    expect(secret).toMatchObject({ entity: 'option', entity_id: 'SMTPToken' });
    expect(secret.after).toEqual({ name: 'SMTPToken', value_changed: true });
    expect(secret.raw.after + secret.raw.before).not.toContain('smtp-secret-value-1');
  });

  it('a channel edit shows its fields before and after and only key_changed for the key', async () => {
    const created = await step(() =>
      root.client.post('/api/channel/', {
        name: 'audited',
        type: 1,
        key: 'sk-first-key-123',
        models: ['gpt-4o'],
        base_url: 'http://127.0.0.1:9',
      }),
    );
    expect(created).toMatchObject({ entity: 'channel', action: 'create', method: 'POST' });
    expect(created.raw.after).not.toContain('sk-first-key-123');
    const id = (await root.client.get('/api/channel/?p=1&page_size=10')).body.data.items.find(
      (c: { name: string }) => c.name === 'audited',
    ).id;
    const renamed = await step(() => root.client.put('/api/channel/', { id, name: 'audited-2' }));
    expect(renamed).toMatchObject({ entity: 'channel', entity_id: String(id), action: 'update' });
    expect(renamed.before.name).toBe('audited');
    expect(renamed.after).toMatchObject({ name: 'audited-2', key_changed: false });
    expect(renamed.before).not.toHaveProperty('key');
    const rekeyed = await step(() => root.client.put('/api/channel/', { id, key: 'sk-second-key-456' }));
    expect(rekeyed.after.key_changed).toBe(true);
    expect(rekeyed.raw.before + rekeyed.raw.after).not.toMatch(/sk-first-key-123|sk-second-key-456/);
  });

  it('user edits record role, status, quota, group, password reset (as changed only) and second-factor reset', async () => {
    await enrolTotp(user.client);
    const reset = await step(() => root.client.delete(`/api/user/${user.userId}/2fa`));
    expect(reset).toMatchObject({ entity: 'user', entity_id: String(user.userId), action: '2fa', method: 'DELETE', status: 200 });
    expect([reset.before.totp_enabled, reset.after.totp_enabled]).toEqual([true, false]);
    const edited = await step(() =>
      admin.client.put('/api/user/', { id: user.userId, username: 'audituser', quota: 5000, group: 'vip', password: 'new-password-1' }),
    );
    expect(edited).toMatchObject({ entity: 'user', entity_id: String(user.userId), action: 'update' });
    expect(edited.before).toMatchObject({ quota: 0, group: 'default' });
    expect(edited.after).toMatchObject({ quota: 5000, group: 'vip', password_changed: true });
    expect(edited.raw.after + edited.raw.before).not.toMatch(/new-password-1|\$2[aby]\$/);
    const promoted = await step(() => root.client.post('/api/user/manage', { id: user.userId, action: 'promote' }));
    expect(promoted).toMatchObject({ action: 'manage:promote', entity_id: String(user.userId) });
    expect([promoted.before.role, promoted.after.role]).toEqual([1, 10]);
    const disabled = await step(() => root.client.post('/api/user/manage', { id: user.userId, action: 'disable' }));
    expect([disabled.before.status, disabled.after.status]).toEqual([1, 2]);
  });

  it("tokens record without their key; another user's token refused is recorded with its 404", async () => {
    const created = await step(() => admin.client.post('/api/token/', { name: 'admin-token', remain_quota: 100 }));
    expect(created.entity).toBe('token');
    const token = (await admin.client.get('/api/token/')).body.data.items[0];
    const edited = await step(() => admin.client.put('/api/token/', { id: token.id, name: 'renamed', remain_quota: 100 }));
    expect(edited).toMatchObject({ entity: 'token', entity_id: String(token.id) });
    expect([edited.before.name, edited.after.name]).toEqual(['admin-token', 'renamed']);
    expect(edited.after.key_changed).toBe(false);
    expect(edited.raw.before + edited.raw.after).not.toContain(token.key.replace(/^sk-/, ''));
    const rootToken = await root.client.post('/api/token/', { name: 'root-token', remain_quota: 1 });
    expect(rootToken.status).toBe(200);
    const rootTokenId = (await root.client.get('/api/token/')).body.data.items[0].id;
    const refused = await step(() => admin.client.put('/api/token/', { id: rootTokenId, name: 'hijack' }), 404);
    expect(refused).toMatchObject({ entity: 'token', entity_id: String(rootTokenId), status: 404 });
    expect(refused.after.body.name).toBe('hijack');
  });

  it('redemption codes record without the code itself', async () => {
    const created = await step(() => admin.client.post('/api/redemption/', { name: 'promo', quota: 10, count: 2 }));
    expect(created).toMatchObject({ entity: 'redemption', action: 'create' });
    const codes: string[] = (await admin.client.post('/api/redemption/', { name: 'promo2', quota: 10, count: 1 })).body.data;
    const list = (await admin.client.get('/api/redemption/')).body.data.items as Array<{ id: number; key: string; name: string }>;
    const one = list.find((item) => item.name === 'promo2')!;
    const edited = await step(() => admin.client.put('/api/redemption/', { id: one.id, name: 'promo2b', quota: 20 }));
    expect([edited.before.quota, edited.after.quota]).toEqual([10, 20]);
    expect(edited.raw.before + edited.raw.after).not.toContain(codes[0]!);
    const deleted = await step(() => admin.client.delete(`/api/redemption/${one.id}`));
    expect(deleted).toMatchObject({ action: 'delete', entity_id: String(one.id), method: 'DELETE' });
  });

  it('a refused attempt by an admin is recorded with its status; a common user’s changes are not', async () => {
    const refused = await step(() => admin.client.put('/api/option/', { key: 'ServerAddress', value: 'https://evil.example' }), 403);
    expect(refused).toMatchObject({ user_id: admin.userId, entity: 'option', entity_id: 'ServerAddress', status: 403 });
    const invalid = await step(() => admin.client.put('/api/channel/', { id: 'x' }), 400);
    expect(invalid.status).toBe(400);
    // A NUL byte (which PostgreSQL refuses in text) in what names the entity does not lose the entry.
    const nul = await step(() => admin.client.put('/api/option/', { key: 'No\u0000tice', value: 'x' }), 400);
    expect(nul.entity_id).toBe('No\uFFFDtice');
    const regular = await createUserAndLogin(server, root.client, 'plainuser', 1);
    const since = await lastAuditId(server);
    expect((await regular.client.post('/api/token/', { name: 'mine', remain_quota: 1 })).status).toBe(200);
    expect((await regular.client.put('/api/option/', { key: 'Notice', value: 'x' })).status).toBe(403);
    expect(await lastAuditId(server)).toBe(since);
  });
});
