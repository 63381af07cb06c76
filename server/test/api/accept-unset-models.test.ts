import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, settleBus } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** accept_unset_model_ratio_model makes unpriced models free: an admin's setting only. */
describe('accept_unset_model_ratio_model is for admins only', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let user: LoggedIn;
  let admin: LoggedIn;

  const chat = (apiKey: string, model: string) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
  const settingOf = async (client: LoggedIn) => JSON.parse((await client.client.get('/api/user/self')).body.data.setting || '{}');

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    const root = await setupRootAndLogin(server);
    user = await createUserAndLogin(server, root.client, 'plainuser', 1);
    admin = await createUserAndLogin(server, root.client, 'adminuser', 10);
    await createRelayChannel(server.ctx, { key: 'k', baseURL: mock.url, models: ['gpt-4o-mini', 'unpriced-model'] });
    for (const id of [user.userId, admin.userId]) {
      await server.ctx.storage.db.updateTable('users').set({ quota: 10_000_000 }).where('id', '=', id).execute();
      await server.ctx.bus.publish('users', String(id));
    }
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  it('refuses a regular user turning it on with 403 and a message, and stores nothing', async () => {
    const res = await user.client.put('/api/user/setting', { accept_unset_model_ratio_model: true });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, message: '仅管理员可以开启未设置价格模型的使用' });
    expect((await settingOf(user)).accept_unset_model_ratio_model).toBeUndefined();
    // Saving the other settings (with the flag off) still works.
    const off = await user.client.put('/api/user/setting', { accept_unset_model_ratio_model: false, quota_warning_threshold: 5 });
    expect(off.status).toBe(200);
  });

  it('keeps the unpriced model refused on the relay for a regular user, even with the flag stored', async () => {
    const token = await createRelayToken(server.ctx, user.userId);
    // A flag written before this fix (or left after a demotion) must not make the model free.
    await server.ctx.storage.db
      .updateTable('users')
      .set({ setting: JSON.stringify({ accept_unset_model_ratio_model: true }) })
      .where('id', '=', user.userId)
      .execute();
    await server.ctx.bus.publish('users', String(user.userId));
    await settleBus(server.ctx);
    const refused = await chat(token.apiKey, 'unpriced-model');
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toContain('has no price set yet');
    const priced = await chat(token.apiKey, 'gpt-4o-mini');
    expect(priced.status).toBe(200);
    await priced.json();
  });

  it('lets an admin turn it on for themselves and then call the unpriced model', async () => {
    const token = await createRelayToken(server.ctx, admin.userId);
    const before = await chat(token.apiKey, 'unpriced-model');
    expect(before.status).toBe(400);
    await before.json();
    const res = await admin.client.put('/api/user/setting', { accept_unset_model_ratio_model: true });
    expect(res.status, res.text).toBe(200);
    expect((await settingOf(admin)).accept_unset_model_ratio_model).toBe(true);
    await settleBus(server.ctx);
    const served = await chat(token.apiKey, 'unpriced-model');
    expect(served.status).toBe(200);
    await served.json();
  });
});
