import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/lib/session.js';
import { ApiClient } from '../helpers/api-client.js';
import { startHostileUpstream } from '../helpers/hostile-upstream.js';
import { startFixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { listChannelTypes } from '../../src/relay/providers/registry.js';

describe('channel probes and pricing', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let admin: ApiClient;
  let root: ApiClient;
  let user: ApiClient;

  const signedIn = async (role: number) => {
    const id = await createRelayUser(server.ctx, { role });
    const client = server.client();
    client.cookie = `session=${signSession('test-session-secret', id, 0)}`;
    client.userId = id;
    return client;
  };

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    admin = await signedIn(10);
    root = await signedIn(100);
    user = await signedIn(1);
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('tests a channel, records response_time and test_time, and re-enables an auto-disabled channel', async () => {
    const id = await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'], status: 3 });
    expect((await user.get(`/api/channel/test/${id}`)).status).toBe(403);
    await setOption(server.ctx, 'AutomaticEnableChannelEnabled', 'true');
    const res = await admin.get(`/api/channel/test/${id}?model=gpt-4o-mini`);
    expect(res.body).toMatchObject({ success: true, message: '' });
    expect(typeof res.body.time).toBe('number');
    const row = await server.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe(1);
    expect(row.test_time).toBeGreaterThan(0);
    expect(mock.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 16 });
  });

  it('never shows an admin a channel key the provider echoes in a failed test, nor puts it in the disable reason', async () => {
    const hostile = await startHostileUpstream();
    try {
      await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
      const key = 'sk-proj-echo401-SECRETSECRETSECRET0123456789';
      const id = await createRelayChannel(server.ctx, { key, baseURL: hostile.url, models: ['gpt-4o-mini'] });
      const res = await admin.get(`/api/channel/test/${id}`);
      expect(res.body.success, res.text).toBe(false);
      expect(res.body.message).toContain('Incorrect API key provided');
      expect(res.text).not.toContain('SECRETSECRET');
      const row = await server.ctx.storage.db
        .selectFrom('channels')
        .select(['status', 'other_info'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain('SECRETSECRET');
    } finally {
      await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'false');
      await hostile.close();
    }
  });

  it('reports an answer its adapter cannot read as a bad answer, not as a connection failure', async () => {
    const upstream = await startFixtureUpstream();
    try {
      // Claude and Gemini answers with a null where a part belongs: the converters cannot read them.
      for (const [type, body] of [
        [14, '{"id":"m","type":"message","content":[null],"usage":null}'],
        [24, '{"candidates":[null]}'],
      ] as const) {
        const id = await createRelayChannel(server.ctx, { type, key: 'unreadable', baseURL: upstream.url, models: ['m'], autoBan: false });
        upstream.reply({ status: 200, contentType: 'application/json', body });
        const res = await admin.get(`/api/channel/test/${id}?model=m`);
        expect(res.body, `type ${type}`).toMatchObject({ success: false, message: '上游响应无法解析' });
      }
      // The far side: a channel nobody answers for still fails as a connection failure.
      const closed = await createRelayChannel(server.ctx, {
        type: 24,
        key: 'unreachable',
        baseURL: 'http://127.0.0.1:9',
        models: ['m'],
        autoBan: false,
      });
      expect((await admin.get(`/api/channel/test/${closed}?model=m`)).body.message).toMatch(/^上游连接失败：/);
    } finally {
      await upstream.close();
    }
  });

  it('disables an auto_ban channel whose test fails with a key error, or is slower than the threshold', async () => {
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
    const broken = await createRelayChannel(server.ctx, { key: 'fail-401', baseURL: mock.url, models: ['gpt-4o-mini'] });
    const res = await admin.get(`/api/channel/test/${broken}`);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('Incorrect API key');
    const slow = await createRelayChannel(server.ctx, { key: 'slow', baseURL: mock.url, models: ['gpt-4o-mini'] });
    await setOption(server.ctx, 'ChannelDisableThreshold', '0.1');
    expect((await admin.get(`/api/channel/test/${slow}`)).body.success).toBe(false);
    await setOption(server.ctx, 'ChannelDisableThreshold', '5');
    const rows = await server.ctx.storage.db
      .selectFrom('channels')
      .select(['id', 'status', 'other_info'])
      .where('id', 'in', [broken, slow])
      .execute();
    for (const row of rows) {
      expect(row.status).toBe(3);
      expect(JSON.parse(row.other_info).status_reason).toBeTruthy();
    }
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'false');
    expect((await admin.get('/api/channel/test')).body.success).toBe(true);
  });

  it('updates the balance of an OpenAI-compatible channel from the dashboard billing endpoints', async () => {
    const id = await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'] });
    const res = await admin.get(`/api/channel/update_balance/${id}`);
    expect(res.body).toMatchObject({ success: true, balance: 75 });
    const row = await server.ctx.storage.db
      .selectFrom('channels')
      .select(['balance', 'balance_updated_time'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.balance).toBe(75);
    expect(row.balance_updated_time).toBeGreaterThan(0);
    expect((await admin.get('/api/channel/update_balance')).body.success).toBe(true);
  });

  it('fetches upstream models for a channel and for an unsaved form', async () => {
    const id = await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'] });
    expect((await admin.get(`/api/channel/fetch_models/${id}`)).body).toMatchObject({
      success: true,
      data: ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small'],
    });
    const posted = await admin.post('/api/channel/fetch_models', { base_url: mock.url, type: 1, key: 'healthy' });
    expect(posted.body.data).toContain('gpt-4o');
  });

  it('serves public pricing and lets only root reset the model ratios', async () => {
    await createRelayChannel(server.ctx, {
      key: 'healthy',
      baseURL: mock.url,
      models: ['gpt-4o-mini', 'dall-e-3'],
      groups: ['default', 'vip'],
    });
    const pricing = await new ApiClient(server.url).get('/api/pricing');
    expect(pricing.body.success).toBe(true);
    const mini = pricing.body.data.find((entry: any) => entry.model_name === 'gpt-4o-mini');
    expect(mini).toMatchObject({ quota_type: 0, model_ratio: 0.075, completion_ratio: 4, enable_groups: ['default', 'vip'] });
    expect(pricing.body.data.find((entry: any) => entry.model_name === 'dall-e-3')).toMatchObject({ quota_type: 1, model_price: 0.04 });
    expect(pricing.body.group_ratio).toMatchObject({ default: 1 });
    expect(pricing.body.usable_group).toHaveProperty('default');

    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 9 }));
    expect((await admin.post('/api/option/rest_model_ratio')).status).toBe(403);
    expect((await root.post('/api/option/rest_model_ratio')).body.success).toBe(true);
    expect(server.ctx.options.json<Record<string, number>>('ModelRatio')['gpt-4o-mini']).toBe(0.075);
  });

  it('lists channel type metadata from the adapters', () => {
    const types = listChannelTypes();
    const byType = new Map(types.map((type) => [type.type, type]));
    for (const type of [1, 8, 20, 25, 31, 40, 42, 43, 44, 47, 48]) expect(byType.has(type)).toBe(true);
    expect(byType.get(1)).toMatchObject({ displayName: 'OpenAI', defaultBaseURL: 'https://api.openai.com', hasBalance: true });
    expect(byType.get(43)!.defaultModels).toContain('deepseek-chat');
  });
});
