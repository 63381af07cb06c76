import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('relay channel selection, failover, auto-disable and channel settings', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let userId: number;
  let apiKey: string;
  const ratios: Record<string, number> = {};

  const chat = (model: string, body: Record<string, unknown> = {}) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }], ...body }),
    });
  const lastLog = () => server.ctx.storage.db.selectFrom('logs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  const channelRow = (id: number) =>
    server.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    for (const model of ['m-failover', 'm-no-retry', 'm-ban', 'm-keyword', 'm-noban', 'm-map', 'm-status', 'm-weights', 'm-504'])
      ratios[model] = 1;
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), ...ratios }),
    );
    await setOption(server.ctx, 'RetryTimes', '2');
    userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
    apiKey = (await createRelayToken(server.ctx, userId)).apiKey;
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('fails over from a failing channel to a healthy one within one request, highest priority first', async () => {
    const broken = await createRelayChannel(server.ctx, {
      key: 'fail-500',
      baseURL: mock.url,
      models: ['m-failover'],
      priority: 10,
      autoBan: false,
    });
    const rateLimited = await createRelayChannel(server.ctx, {
      key: 'fail-429',
      baseURL: mock.url,
      models: ['m-failover'],
      priority: 5,
      autoBan: false,
    });
    const healthy = await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['m-failover'], priority: 0 });
    const response = await chat('m-failover');
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe('Hello from the mock upstream.');
    await flushRelay(server.ctx);
    const log = await lastLog();
    expect(log.channel_id).toBe(healthy);
    expect(JSON.parse(log.other).admin_info.use_channel).toEqual([String(broken), String(rateLimited), String(healthy)]);
  });

  it('stops at RetryTimes and returns the last upstream error, refunding the hold', async () => {
    await setOption(server.ctx, 'RetryTimes', '1');
    const before = mock.requests.length;
    await createRelayChannel(server.ctx, { key: 'fail-502', baseURL: mock.url, models: ['m-no-retry'], priority: 3, autoBan: false });
    await createRelayChannel(server.ctx, { key: 'fail-500', baseURL: mock.url, models: ['m-no-retry'], priority: 2, autoBan: false });
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['m-no-retry'], priority: 1 });
    const response = await chat('m-no-retry');
    expect(response.status).toBe(500);
    // A channel-side failure: a gateway error with a generic message (the upstream text is logged).
    expect((await response.json()).error).toMatchObject({
      type: 'upstream_error',
      code: 'upstream_error',
      message: 'The upstream service failed. Please try again later or contact the administrator',
    });
    expect(mock.requests.length - before).toBe(2);
    const user = server.relay.access.cachedUsers();
    for (const cached of user) expect(cached.held).toBe(0);
    await setOption(server.ctx, 'RetryTimes', '2');
  });

  it('does not retry 504 (or a 400) on another channel', async () => {
    await createRelayChannel(server.ctx, { key: 'fail-504', baseURL: mock.url, models: ['m-504'], priority: 3, autoBan: false });
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['m-504'], priority: 1 });
    expect((await chat('m-504')).status).toBe(504);
  });

  it('auto-disables an auto_ban channel on a 401 key error and on a disable keyword, never a channel without auto_ban', async () => {
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
    const banned = await createRelayChannel(server.ctx, { key: 'fail-401', baseURL: mock.url, models: ['m-ban'], priority: 5 });
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['m-ban'], priority: 0 });
    expect((await chat('m-ban')).status).toBe(200);
    const keyword = await createRelayChannel(server.ctx, { key: 'fail-quota', baseURL: mock.url, models: ['m-keyword'] });
    expect((await chat('m-keyword')).status).toBe(429);
    const kept = await createRelayChannel(server.ctx, { key: 'fail-401', baseURL: mock.url, models: ['m-noban'], autoBan: false });
    // The channel's 401 is not the caller's: a 502 gateway error, never their own invalid_api_key.
    const keyFailure = await chat('m-noban');
    expect(keyFailure.status).toBe(502);
    expect((await keyFailure.json()).error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const row = await channelRow(banned);
    expect(row.status).toBe(3);
    expect(JSON.parse(row.other_info)).toMatchObject({ status_reason: expect.stringContaining('401'), status_time: expect.any(Number) });
    expect((await channelRow(keyword)).status).toBe(3);
    expect((await channelRow(kept)).status).toBe(1);
    const abilities = await server.ctx.storage.db.selectFrom('abilities').select('enabled').where('channel_id', '=', banned).execute();
    expect(abilities.every((ability) => ability.enabled === 0)).toBe(true);
    // The disabled channel is no longer selected: the next request goes straight to the healthy one.
    const before = mock.requestsFor('fail-401').length;
    expect((await chat('m-ban')).status).toBe(200);
    expect(mock.requestsFor('fail-401').length).toBe(before);
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'false');
  });

  it('maps the model upstream, bills the requested model, merges param_override and sends the organization', async () => {
    const id = await createRelayChannel(server.ctx, {
      key: 'healthy',
      baseURL: mock.url,
      models: ['m-map'],
      modelMapping: { 'm-map': 'gpt-4o-mini' },
      paramOverride: { temperature: 0.25 },
      organization: 'org-test',
    });
    const response = await chat('m-map', { temperature: 1 });
    expect(response.status).toBe(200);
    const sent = mock.requests.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.25 });
    expect(sent.headers['openai-organization']).toBe('org-test');
    // One that is not a header value (imported, or edited in the database) is left out, not a failed call.
    await server.ctx.storage.db.updateTable('channels').set({ openai_organization: 'org\r\nX-Injected: 1' }).where('id', '=', id).execute();
    await server.relay.channels.rebuild();
    expect((await chat('m-map', { temperature: 1 })).status).toBe(200);
    expect(mock.requests.at(-1)!.headers).not.toHaveProperty('openai-organization');
    expect(mock.requests.at(-1)!.headers).not.toHaveProperty('x-injected');

    await flushRelay(server.ctx);
    const log = await lastLog();
    expect(log).toMatchObject({ model_name: 'm-map', channel_id: id });
    expect(JSON.parse(log.other)).toMatchObject({ is_model_mapped: true, upstream_model_name: 'gpt-4o-mini', model_ratio: 1 });
    expect(log.quota).toBe(log.prompt_tokens + log.completion_tokens);
  });

  it('rewrites the status returned to the client with status_code_mapping', async () => {
    await createRelayChannel(server.ctx, { key: 'fail-400', baseURL: mock.url, models: ['m-status'], statusCodeMapping: { 400: '502' } });
    const response = await chat('m-status');
    expect(response.status).toBe(502);
    expect((await response.json()).error.message).toContain('mock failure 400');
  });

  it('spreads traffic by weight within a priority', async () => {
    await createRelayChannel(server.ctx, { key: 'healthy', name: 'heavy', baseURL: mock.url, models: ['m-weights'], weight: 9 });
    const light = await createRelayChannel(server.ctx, {
      key: 'healthy',
      name: 'light',
      baseURL: mock.url,
      models: ['m-weights'],
      weight: 1,
    });
    const picks = new Map<number, number>();
    for (let i = 0; i < 2000; i += 1) {
      const channel = server.relay.channels.select('default', 'm-weights', new Set())!;
      picks.set(channel.id, (picks.get(channel.id) ?? 0) + 1);
    }
    expect(picks.get(light)!).toBeGreaterThan(100);
    expect(picks.get(light)!).toBeLessThan(350);
  });
});
