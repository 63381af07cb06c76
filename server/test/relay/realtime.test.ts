import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer, relayOf } from '../helpers/test-server.js';
import { createTestDatabase } from '../helpers/test-storage.js';
import { defaultGroupRatio } from '../../src/options/registry.js';
import { eventTypes, openClient, startMockRealtime, waitFor, type MockRealtime } from '../helpers/realtime-upstream.js';

describe('GET /v1/realtime', () => {
  let server: TestServer;
  let mock: MockRealtime;
  let wsBase: string;

  beforeAll(async () => {
    mock = await startMockRealtime();
    server = await startTestServer();
    wsBase = server.url.replace(/^http/, 'ws');
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  async function logsOf(userId: number) {
    await flushRelay(server.ctx);
    return server.ctx.storage.db.selectFrom('logs').selectAll().where('user_id', '=', userId).where('type', '=', 2).execute();
  }

  it('subprotocol auth: relays text and binary frames intact both ways, sums usage over two response.done events and bills once at close', async () => {
    const { ctx } = server;
    const startQuota = 50_000_000;
    const userId = await createRelayUser(ctx, { quota: startQuota });
    const token = await createRelayToken(ctx, userId, { remainQuota: 10_000_000 });
    const channelId = await createRelayChannel(ctx, {
      key: 'realtime-key',
      baseURL: mock.url,
      models: ['gpt-4o-realtime-preview'],
      modelMapping: { 'gpt-4o-realtime-preview': 'gpt-4o-realtime-preview-2024-12-17' },
    });
    const before = mock.connections.length;
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview`, {
      protocols: ['realtime', `openai-insecure-api-key.${token.apiKey}`, 'openai-beta.realtime-v1'],
    });
    await client.opened;
    expect(client.socket.protocol).toBe('realtime');
    await waitFor(() => client.frames.length >= 1, 'session.created');
    const upstream = mock.connections[before]!;
    const upstreamUrl = new URL(upstream.url, 'http://x');
    expect(upstreamUrl.pathname).toBe('/v1/realtime');
    expect(upstreamUrl.searchParams.get('model')).toBe('gpt-4o-realtime-preview-2024-12-17');
    expect(upstream.headers.authorization).toBe('Bearer realtime-key');
    expect(upstream.headers['openai-beta']).toBe('realtime=v1');
    expect(String(upstream.headers['sec-websocket-protocol'] ?? '')).not.toContain(token.apiKey);
    expect(client.frames[0]!.text).toBe(upstream.sent[0]);

    // Client → upstream: a text event with unusual spacing and a binary frame arrive byte for byte.
    const update = '{"type":"session.update",  "session":{"instructions":"说中文 ✓","modalities":["text","audio"]}}';
    const audio = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
    client.socket.send(update);
    client.socket.send(audio, { binary: true });
    await waitFor(() => upstream.received.length >= 2, 'upstream frames');
    expect(upstream.received[0]!.isBinary).toBe(false);
    expect(upstream.received[0]!.data.toString('utf8')).toBe(update);
    expect(upstream.received[1]!.isBinary).toBe(true);
    expect(upstream.received[1]!.data.equals(audio)).toBe(true);
    // Upstream → client: the echoed binary frame stays binary and identical.
    const echoed = await waitFor(() => client.frames.find((frame) => frame.isBinary), 'binary echo');
    expect(echoed.data.equals(audio)).toBe(true);

    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).filter((type) => type === 'response.done').length === 1, 'first response.done');
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).filter((type) => type === 'response.done').length === 2, 'second response.done');
    expect(eventTypes(client.frames)).toEqual([
      'session.created',
      'response.created',
      'response.audio_transcript.delta',
      'response.done',
      'response.created',
      'response.audio_transcript.delta',
      'response.done',
    ]);
    // Every upstream text event reached the client unchanged, in order.
    expect(client.frames.filter((frame) => !frame.isBinary).map((frame) => frame.text)).toEqual(upstream.sent);
    expect(await logsOf(userId)).toHaveLength(0);

    client.socket.close(1000, 'bye');
    expect((await client.closed).code).toBe(1000);
    expect(await upstream.closed).toBe(1000);
    const logs = await waitForLogs(userId);
    expect(logs).toHaveLength(1);
    const log = logs[0]!;
    const other = JSON.parse(log.other);
    // Totals: text in 20+40, audio in 100+260, cached text 10+24, cached audio 0+40, text out 50+30, audio out 200+60.
    expect(other).toMatchObject({
      ws: true,
      audio: true,
      text_input: 60,
      audio_input: 360,
      cache_text_tokens: 34,
      cache_audio_tokens: 40,
      cache_tokens: 74,
      text_output: 80,
      audio_output: 260,
      responses: 2,
      model_ratio: 2.5,
      completion_ratio: 4,
      cache_ratio: 0.5,
      audio_ratio: 8,
      audio_completion_ratio: 2,
      group_ratio: 1,
      is_model_mapped: true,
      upstream_model_name: 'gpt-4o-realtime-preview-2024-12-17',
      request_path: '/v1/realtime',
    });
    expect(log.prompt_tokens).toBe(420);
    expect(log.completion_tokens).toBe(340);
    expect(log.is_stream).toBe(1);
    expect(log.channel_id).toBe(channelId);
    expect(log.token_id).toBe(token.id);
    expect(log.model_name).toBe('gpt-4o-realtime-preview');
    expect(log.use_time).toBeGreaterThanOrEqual(0);
    // 2.5 × ((60 − 34) + (360 − 40) × 8 + 74 × 0.5 + 80 × 4 + 260 × 8 × 2) = 2.5 × 7103 = 17757.5 → 17758
    expect(Number(log.quota)).toBe(17758);

    const user = await ctx.storage.db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(Number(user.used_quota)).toBe(17758);
    expect(Number(user.quota)).toBe(startQuota - 17758);
    expect(Number(user.request_count)).toBe(1);
    const tokenRow = await ctx.storage.db
      .selectFrom('tokens')
      .select(['used_quota', 'remain_quota'])
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect(Number(tokenRow.used_quota)).toBe(17758);
    expect(Number(tokenRow.remain_quota)).toBe(10_000_000 - 17758);
    const channel = await ctx.storage.db.selectFrom('channels').select('used_quota').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(Number(channel.used_quota)).toBe(17758);
    const cachedUser = [...relayOf(ctx).access.cachedUsers()].find((cached) => cached.id === userId)!;
    expect(cachedUser.held).toBe(0);
    expect(cachedUser.pendingQuota).toBe(0);
  });

  async function waitForLogs(userId: number, count = 1) {
    const deadline = Date.now() + 5000;
    for (;;) {
      const logs = await logsOf(userId);
      if (logs.length >= count || Date.now() > deadline) return logs;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('Bearer auth in the Authorization header; no subprotocol is echoed when none is offered', async () => {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    await createRelayChannel(server.ctx, { key: 'bearer-key', baseURL: mock.url, models: ['gpt-realtime'] });
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-realtime`, { headers: { Authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    expect(client.socket.protocol).toBe('');
    await waitFor(() => client.frames.length >= 1, 'session.created');
    expect(JSON.parse(client.frames[0]!.text)).toMatchObject({ type: 'session.created', session: { model: 'gpt-realtime' } });
    client.socket.close();
    await client.closed;
    const logs = await waitForLogs(userId);
    expect(logs).toHaveLength(1);
    expect(Number(logs[0]!.quota)).toBe(0);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ ws: true, responses: 0, model_ratio: 2, audio_ratio: 8 });
  });

  it('rejects the upgrade for an invalid, missing or model-limited key with the relay status and OpenAI error body', async () => {
    const invalid = openClient(`${wsBase}/v1/realtime?model=gpt-realtime`, {
      protocols: ['realtime', 'openai-insecure-api-key.sk-doesnotexist'],
    });
    const rejected = await invalid.rejected;
    expect(rejected.status).toBe(401);
    expect(JSON.parse(rejected.body).error.code).toBe('invalid_api_key');

    const missing = await openClient(`${wsBase}/v1/realtime?model=gpt-realtime`).rejected;
    expect(missing.status).toBe(401);

    const userId = await createRelayUser(server.ctx);
    const limited = await createRelayToken(server.ctx, userId, { modelLimits: ['gpt-4o'] });
    const forbidden = await openClient(`${wsBase}/v1/realtime?model=gpt-realtime`, {
      headers: { Authorization: `Bearer ${limited.apiKey}` },
    }).rejected;
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.body).error.code).toBe('model_not_allowed');

    const token = await createRelayToken(server.ctx, userId);
    const noChannel = await openClient(`${wsBase}/v1/realtime?model=gpt-4o-mini-realtime-preview`, {
      headers: { Authorization: `Bearer ${token.apiKey}` },
    }).rejected;
    expect(noChannel.status).toBe(404);
    expect(JSON.parse(noChannel.body).error.code).toBe('model_not_found');
  });

  it('Azure channel: wss {resource}/openai/realtime with api-version and deployment, api-key header, no Bearer', async () => {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    const id = await createRelayChannel(server.ctx, {
      type: 3,
      key: 'azure-key',
      baseURL: `${mock.url}/`,
      models: ['gpt-4o-mini-realtime-preview'],
      groups: ['azure'],
    });
    await server.ctx.storage.db.updateTable('channels').set({ other: '2024-10-01-preview' }).where('id', '=', id).execute();
    await server.relay.channels.rebuild();
    const azureToken = await createRelayToken(server.ctx, userId, { group: 'azure' });
    await server.ctx.options.set('UserUsableGroups', JSON.stringify({ default: 'default', azure: 'azure' }));
    const before = mock.connections.length;
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-4o-mini-realtime-preview`, {
      protocols: [`openai-insecure-api-key.${azureToken.apiKey}`, 'openai-beta.realtime-v1'],
    });
    await client.opened;
    expect(client.socket.protocol).toBe('openai-beta.realtime-v1');
    await waitFor(() => mock.connections.length > before, 'azure upstream');
    const upstream = mock.connections[before]!;
    const url = new URL(upstream.url, 'http://x');
    expect(url.pathname).toBe('/openai/realtime');
    expect(url.searchParams.get('api-version')).toBe('2024-10-01-preview');
    expect(url.searchParams.get('deployment')).toBe('gpt-4o-mini-realtime-preview');
    expect(upstream.headers['api-key']).toBe('azure-key');
    expect(upstream.headers.authorization).toBeUndefined();
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    client.socket.close();
    const logs = await waitForLogs(userId);
    expect(logs).toHaveLength(1);
    // gpt-4o-mini-realtime-preview: ratio 0.3, completion 4, cache 0.5, audio 10/0.6, audio completion 2; usage of response 1.
    const weighted = 20 - 10 + 100 * (10 / 0.6) + 10 * 0.5 + 50 * 4 + 200 * (10 / 0.6) * 2;
    expect(Number(logs[0]!.quota)).toBe(Math.round(0.3 * weighted));
    expect(logs[0]!.token_id).toBe(azureToken.id);
    expect(token.id).not.toBe(azureToken.id);
  });

  it('upstream down: an OpenAI-style error event, then close 1011; nothing billed or held', async () => {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    const closedPort = await new Promise<number>((resolve) => {
      const probe = http.createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    await createRelayChannel(server.ctx, {
      key: 'down',
      baseURL: `http://127.0.0.1:${closedPort}`,
      models: ['gpt-4o-realtime-preview-2025-06-03'],
      autoBan: false,
    });
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview-2025-06-03`, {
      headers: { Authorization: `Bearer ${token.apiKey}` },
    });
    await client.opened;
    const closed = await client.closed;
    expect(closed.code).toBe(1011);
    expect(client.frames).toHaveLength(1);
    const event = JSON.parse(client.frames[0]!.text);
    expect(event).toMatchObject({ type: 'error', error: { type: 'upstream_error', code: 'upstream_unreachable' } });
    expect(event.error.message).toBe('The upstream service is unavailable. Please try again later');
    expect(JSON.stringify(event)).not.toContain('127.0.0.1');
    expect(JSON.stringify(event)).not.toContain(String(closedPort));
    const cachedUser = [...server.relay.access.cachedUsers()].find((cached) => cached.id === userId)!;
    expect(cachedUser.held).toBe(0);
    expect(await logsOf(userId)).toHaveLength(0);
  });

  it('an upstream handshake refusal carries the upstream status message in the error event', async () => {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    await createRelayChannel(server.ctx, { key: 'fail-400', baseURL: mock.url, models: ['gpt-realtime-mini'] });
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-realtime-mini`, { headers: { Authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    expect((await client.closed).code).toBe(1011);
    expect(JSON.parse(client.frames[0]!.text)).toMatchObject({
      type: 'error',
      error: { code: 'mock_refused', message: 'mock realtime refused with 400' },
    });
  });

  it('a client that drops the connection closes the upstream, and the session is still billed once', async () => {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    await createRelayChannel(server.ctx, { key: 'drop-key', baseURL: mock.url, models: ['gpt-realtime-2025-08-28'] });
    const before = mock.connections.length;
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-realtime-2025-08-28`, {
      headers: { Authorization: `Bearer ${token.apiKey}` },
    });
    await client.opened;
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    const upstream = mock.connections[before]!;
    client.socket.terminate();
    expect(await upstream.closed).toBe(1001);
    const logs = await waitForLogs(userId);
    expect(logs).toHaveLength(1);
    // gpt-realtime: ratio 2, completion 4, cache 0.1, audio 8, audio completion 2; usage of response 1.
    expect(Number(logs[0]!.quota)).toBe(Math.round(2 * (20 - 10 + 100 * 8 + 10 * 0.1 + 50 * 4 + 200 * 8 * 2)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await logsOf(userId)).toHaveLength(1);
  });

  it('an auto token with cross_group_retry connects in the next auto group, priced at its ratio', async () => {
    await setOption(
      server.ctx,
      'UserUsableGroups',
      JSON.stringify({ default: '默认分组', vip: 'vip分组', svip: 'svip分组', auto: '自动选择' }),
    );
    await setOption(server.ctx, 'AutoGroups', JSON.stringify(['vip', 'svip']));
    await setOption(server.ctx, 'GroupRatio', JSON.stringify({ default: 1, vip: 2, svip: 3 }));
    try {
      const closedPort = await new Promise<number>((resolve) => {
        const probe = http.createServer();
        probe.listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as AddressInfo;
          probe.close(() => resolve(port));
        });
      });
      const model = 'gpt-realtime-2025-08-28';
      const deadChannel = await createRelayChannel(server.ctx, {
        key: 'down',
        baseURL: `http://127.0.0.1:${closedPort}`,
        models: [model],
        groups: ['vip'],
        autoBan: false,
      });
      const servingChannel = await createRelayChannel(server.ctx, {
        key: 'cross-key',
        baseURL: mock.url,
        models: [model],
        groups: ['svip'],
      });
      const userId = await createRelayUser(server.ctx);
      const open = (apiKey: string) =>
        openClient(`${wsBase}/v1/realtime?model=${model}`, { headers: { Authorization: `Bearer ${apiKey}` } });

      const plain = await createRelayToken(server.ctx, userId, { group: 'auto' });
      const refused = open(plain.apiKey);
      await refused.opened;
      expect((await refused.closed).code).toBe(1011);

      const crossing = await createRelayToken(server.ctx, userId, { group: 'auto', crossGroupRetry: true });
      const before = mock.connections.length;
      const client = open(crossing.apiKey);
      await client.opened;
      client.socket.send(JSON.stringify({ type: 'response.create' }));
      await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
      expect(mock.connections[before]!.headers.authorization).toBe('Bearer cross-key');
      client.socket.close(1000, 'bye');
      await client.closed;
      const logs = await waitForLogs(userId);
      expect(logs).toHaveLength(1);
      expect(logs[0]!.group).toBe('svip');
      expect(logs[0]!.channel_id).toBe(servingChannel);
      expect(JSON.parse(logs[0]!.other)).toMatchObject({
        group: 'svip',
        auto_group: 'svip',
        requested_group: 'auto',
        group_ratio: 3,
        admin_info: { use_channel: [String(deadChannel), String(servingChannel)] },
      });
      // gpt-realtime (ratio 2, cache 0.1, audio 8, audio completion 2) at svip's group ratio 3, not vip's 2.
      expect(Number(logs[0]!.quota)).toBe(Math.round(2 * 3 * (20 - 10 + 100 * 8 + 10 * 0.1 + 50 * 4 + 200 * 8 * 2)));
    } finally {
      await setOption(server.ctx, 'GroupRatio', JSON.stringify(defaultGroupRatio));
      await setOption(server.ctx, 'AutoGroups', JSON.stringify(['default']));
      await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组' }));
    }
  });

  it('a low balance runs one session at a time, as its chat calls; a balance above LowBalanceQuota runs several', async () => {
    await createRelayChannel(server.ctx, { key: 'turn-key', baseURL: mock.url, models: ['gpt-realtime-mini-2025-10-06'] });
    await setOption(server.ctx, 'LowBalanceQueueSeconds', '1');
    const open = (apiKey: string) =>
      openClient(`${wsBase}/v1/realtime?model=gpt-realtime-mini-2025-10-06`, { headers: { Authorization: `Bearer ${apiKey}` } });
    const started = async (client: ReturnType<typeof open>) => {
      await client.opened;
      await waitFor(() => eventTypes(client.frames).includes('session.created'), 'session.created');
    };
    try {
      // 100,000 is below LowBalanceQuota (500,000): the first session keeps the user's turn while it runs.
      const low = await createRelayUser(server.ctx, { quota: 100_000 });
      const lowToken = await createRelayToken(server.ctx, low);
      const first = open(lowToken.apiKey);
      await started(first);
      const second = open(lowToken.apiKey);
      await second.opened;
      expect((await second.closed).code).toBe(1008);
      expect(JSON.parse(second.frames.at(-1)!.text).error.code).toBe('low_balance_queue_timeout');
      expect(eventTypes(second.frames)).not.toContain('session.created');
      first.socket.close(1000, 'bye');
      await first.closed;
      const third = open(lowToken.apiKey);
      await started(third);
      third.socket.close(1000, 'bye');
      await third.closed;

      const high = await createRelayUser(server.ctx, { quota: 10_000_000 });
      const highToken = await createRelayToken(server.ctx, high);
      const together = [open(highToken.apiKey), open(highToken.apiKey)];
      await Promise.all(together.map(started));
      for (const client of together) client.socket.close(1000, 'bye');
      await Promise.all(together.map((client) => client.closed));
    } finally {
      await setOption(server.ctx, 'LowBalanceQueueSeconds', '60');
    }
  });

  it('ends the session with an error event once the running total uses up the quota', async () => {
    // Hold for PreConsumedQuota (500 tokens × 2.5 = 1250) fits; the first response costs 2.5 × 4555 = 11388.
    const userId = await createRelayUser(server.ctx, { quota: 5000 });
    const token = await createRelayToken(server.ctx, userId);
    await createRelayChannel(server.ctx, { key: 'quota-key', baseURL: mock.url, models: ['gpt-4o-realtime-preview-2024-12-17'] });
    const before = mock.connections.length;
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview-2024-12-17`, {
      headers: { Authorization: `Bearer ${token.apiKey}` },
    });
    await client.opened;
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    const closed = await client.closed;
    expect(closed.code).toBe(1008);
    const types = eventTypes(client.frames);
    expect(types.slice(-2)).toEqual(['response.done', 'error']);
    expect(JSON.parse(client.frames.at(-1)!.text).error.code).toBe('insufficient_user_quota');
    await mock.connections[before]!.closed;
    const logs = await waitForLogs(userId);
    expect(logs).toHaveLength(1);
    expect(Number(logs[0]!.quota)).toBe(Math.round(2.5 * (20 - 10 + 100 * 8 + 10 * 0.5 + 50 * 4 + 200 * 8 * 2)));
    // A new session is refused before connecting.
    const again = await openClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview-2024-12-17`, {
      headers: { Authorization: `Bearer ${token.apiKey}` },
    }).rejected;
    expect(again.status).toBe(403);
  });

  it('shutdown bills an open session before the final flush', async () => {
    const database = await createTestDatabase('sqlite');
    const own = await startTestServer({ database });
    let userId = 0;
    try {
      userId = await createRelayUser(own.ctx);
      const token = await createRelayToken(own.ctx, userId);
      await createRelayChannel(own.ctx, { key: 'shutdown-key', baseURL: mock.url, models: ['gpt-realtime'] });
      const client = openClient(`${own.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-realtime`, {
        headers: { Authorization: `Bearer ${token.apiKey}` },
      });
      await client.opened;
      client.socket.send(JSON.stringify({ type: 'response.create' }));
      await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
      await own.stop();
      await client.closed;
    } finally {
      await own.stop();
    }
    const reopened = await startTestServer({ database });
    try {
      const logs = await reopened.ctx.storage.db.selectFrom('logs').selectAll().where('user_id', '=', userId).execute();
      expect(logs).toHaveLength(1);
      expect(Number(logs[0]!.quota)).toBe(Math.round(2 * (20 - 10 + 100 * 8 + 10 * 0.1 + 50 * 4 + 200 * 8 * 2)));
    } finally {
      await reopened.stop();
      await database.drop();
    }
  });

  it('error events inside a session reach the client classified and redacted, never with the channel key', async () => {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    const channelKey = 'sk-proj-realtime-Hq3Lm8Zt5Wv2Xy7Rk4Np9Bc1';
    await createRelayChannel(server.ctx, { key: channelKey, baseURL: mock.url, models: ['gpt-realtime'], priority: 100 });
    const client = openClient(`${wsBase}/v1/realtime?model=gpt-realtime`, { headers: { Authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    client.socket.send(JSON.stringify({ type: 'mock.error', event_id: 'client_1' }));
    client.socket.send(JSON.stringify({ type: 'mock.error', event_id: 'client_2', kind: 'invalid_request_error' }));
    const errors = await waitFor(() => {
      const found = client.frames.filter((frame) => !frame.isBinary && frame.text.includes('"error"'));
      return found.length >= 2 && found;
    }, 'two error events');
    const [channelSide, callerSide] = errors.map((frame) => JSON.parse(frame.text));
    expect(channelSide).toMatchObject({
      type: 'error',
      event_id: 'event_err',
      error: { type: 'upstream_error', code: 'upstream_error', event_id: 'client_1' },
    });
    expect(callerSide).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'mock_code', event_id: 'client_2' } });
    expect(callerSide.error.message).toContain("Invalid 'voice'");
    for (const frame of errors) {
      expect(frame.text).not.toContain('Hq3Lm8Zt5');
      expect(frame.text).not.toContain('10.20.30.40');
    }
    client.socket.close();
    await client.closed;
  });
});
