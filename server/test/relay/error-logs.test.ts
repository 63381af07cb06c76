import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { userLogView } from '../../src/api/logs/find-logs.js';
import { expectLedgerExact } from '../helpers/ledger-check.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/** What a leaky upstream echoes in its errors: the channel's key and its internal addresses. */
const echoedKey = 'sk-live-Zq81vXk2LmN4pQ7rT0uW';
const leaks = [echoedKey, 'Zq81vXk2LmN4pQ7rT0uW', '10.20.30.40', 'inference.internal', 'vllm-7.cluster.local', '8443', 'http://'];

/**
 * An OpenAI-compatible upstream that fails every chat call with the status its key names
 * (`leaky-500`, `leaky-400`, ...) and an error text that echoes a key and internal addresses.
 */
async function startLeakyUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = Number(/leaky-(\d{3})/.exec(req.headers.authorization ?? '')?.[1] ?? 500);
      const message = `backend http://10.20.30.40:8443/v1/chat/completions (inference.internal, vllm-7.cluster.local:8443) failed for Authorization: Bearer ${echoedKey}`;
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ error: { message, type: 'server_error', code: status === 400 ? 'context_length_exceeded' : 'backend_down' } }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (connection refused). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = http.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe.each(storageKinds())('error logs (type 5, ErrorLogEnabled) on %s', (kind) => {
  let server: TestServer;
  let leaky: Awaited<ReturnType<typeof startLeakyUpstream>>;
  let mock: MockOpenAi;
  let suno: SunoUpstream;
  let refusedPort: number;
  const startQuota = new Map<number, number>();

  const newCaller = async (quota = 5_000_000) => {
    const id = await createRelayUser(server.ctx, { quota });
    startQuota.set(id, quota);
    const token = await createRelayToken(server.ctx, id);
    return { id, tokenId: token.id, apiKey: token.apiKey };
  };
  const chat = (apiKey: string, model: string, body: Record<string, unknown> = {}) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }], ...body }),
    });
  const logsOf = async (userId: number, type?: number) => {
    let query = server.ctx.storage.db.selectFrom('logs').selectAll().where('user_id', '=', userId);
    if (type !== undefined) query = query.where('type', '=', type);
    return query.orderBy('id', 'asc').execute();
  };
  const counters = async (userId: number, tokenId: number, channelIds: number[]) => {
    const db = server.ctx.storage.db;
    const user = await db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', tokenId).executeTakeFirstOrThrow();
    const channels = await db.selectFrom('channels').select(['id', 'used_quota']).where('id', 'in', channelIds).orderBy('id').execute();
    return JSON.stringify({ user, token, channels: channels.map((channel) => [channel.id, Number(channel.used_quota)]) });
  };
  const expectRedacted = (text: string) => {
    for (const leak of leaks) expect(text, leak).not.toContain(leak);
  };

  beforeAll(async () => {
    leaky = await startLeakyUpstream();
    mock = await startMockOpenAi();
    suno = await startSunoUpstream('suno-key');
    refusedPort = await closedPort();
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    const ratios = { 'err-5xx': 1, 'err-4xx': 1, 'err-down': 1, 'err-off': 1, 'err-ok': 1, 'err-none': 1 };
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), ...ratios }),
    );
    await setOption(server.ctx, 'RetryTimes', '1');
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(
      server.ctx,
      'ModelPrice',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelPrice'), suno_music: 0.1 }),
    );
  });
  afterAll(async () => {
    await server?.stop();
    await leaky?.close();
    await mock?.close();
    await suno?.close();
  });

  it('is off by default: a failed call writes no log row and bills nothing', async () => {
    expect(server.ctx.options.bool('ErrorLogEnabled')).toBe(false);
    const caller = await newCaller();
    const channel = await createRelayChannel(server.ctx, { key: 'leaky-500', baseURL: leaky.url, models: ['err-off'], autoBan: false });
    const before = await counters(caller.id, caller.tokenId, [channel]);
    expect((await chat(caller.apiKey, 'err-off')).status).toBe(500);
    await flushRelay(server.ctx);
    expect(await logsOf(caller.id)).toHaveLength(0);
    expect(await counters(caller.id, caller.tokenId, [channel])).toBe(before);
  });

  it('records an upstream 5xx after failover as one type 5 row: last channel, channels tried, redacted text, nothing billed', async () => {
    await setOption(server.ctx, 'ErrorLogEnabled', 'true');
    const caller = await newCaller();
    const first = await createRelayChannel(server.ctx, {
      key: 'leaky-502',
      baseURL: leaky.url,
      models: ['err-5xx'],
      priority: 5,
      autoBan: false,
    });
    const second = await createRelayChannel(server.ctx, {
      key: 'leaky-500',
      baseURL: leaky.url,
      models: ['err-5xx'],
      priority: 1,
      autoBan: false,
    });
    const before = await counters(caller.id, caller.tokenId, [first, second]);
    const response = await chat(caller.apiKey, 'err-5xx', { stream: true });
    expect(response.status).toBe(500);
    expectRedacted(await response.text());
    await flushRelay(server.ctx);
    const rows = await logsOf(caller.id);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({
      type: 5,
      quota: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      channel_id: second,
      token_id: caller.tokenId,
      model_name: 'err-5xx',
      group: 'default',
      is_stream: 1,
    });
    expect(Number(row!.use_time)).toBeGreaterThanOrEqual(0);
    // The upstream's own words, without the key, hosts, URLs and IP:port it echoed.
    expect(row!.content).toContain('failed for Authorization: Bearer ***');
    expect(row!.content).toContain('[upstream]');
    expectRedacted(row!.content);
    expectRedacted(row!.other);
    expect(JSON.parse(row!.other)).toEqual({
      status_code: 500,
      error_type: 'upstream_error',
      error_code: 'upstream_error',
      request_path: '/v1/chat/completions',
      group: 'default',
      admin_info: {
        use_channel: [String(first), String(second)],
        channel_name: expect.any(String),
        channel_type: 1,
        upstream_status: 500,
        upstream_code: 'backend_down',
      },
    });
    expect(await counters(caller.id, caller.tokenId, [first, second])).toBe(before);
    // The caller reading their own log sees the failure, not the channels or the upstream's status.
    const own = userLogView(row!, 'en');
    expect(own).not.toHaveProperty('channel_id');
    expect(JSON.parse(own.other)).toEqual({
      status_code: 500,
      error_type: 'upstream_error',
      error_code: 'upstream_error',
      request_path: '/v1/chat/completions',
      group: 'default',
    });
  });

  it('records a 4xx the caller is answered with its status and code, and a refused connection as 502', async () => {
    const caller = await newCaller();
    const bad = await createRelayChannel(server.ctx, { key: 'leaky-400', baseURL: leaky.url, models: ['err-4xx'], autoBan: false });
    const down = await createRelayChannel(server.ctx, {
      key: 'down',
      baseURL: `http://127.0.0.1:${refusedPort}`,
      models: ['err-down'],
      autoBan: false,
    });
    const before = await counters(caller.id, caller.tokenId, [bad, down]);
    const badAnswer = await chat(caller.apiKey, 'err-4xx');
    expect(badAnswer.status).toBe(400);
    expect((await badAnswer.json()).error.code).toBe('context_length_exceeded');
    expect((await chat(caller.apiKey, 'err-down')).status).toBe(502);
    await flushRelay(server.ctx);
    const [badRow, downRow] = await logsOf(caller.id);
    expect(badRow).toMatchObject({ type: 5, quota: 0, channel_id: bad, is_stream: 0 });
    expect(JSON.parse(badRow!.other)).toMatchObject({
      status_code: 400,
      error_type: 'invalid_request_error',
      error_code: 'context_length_exceeded',
      admin_info: { use_channel: [String(bad)], upstream_status: 400 },
    });
    expectRedacted(badRow!.content);
    expect(downRow).toMatchObject({ type: 5, quota: 0, channel_id: down });
    expect(JSON.parse(downRow!.other)).toMatchObject({
      status_code: 502,
      error_type: 'upstream_error',
      error_code: 'upstream_unreachable',
      admin_info: { use_channel: [String(down)], upstream_status: 0 },
    });
    expect(downRow!.content).toMatch(/^上游连接失败：/);
    expect(downRow!.content).not.toContain(String(refusedPort));
    expect(downRow!.content).not.toContain('127.0.0.1');
    expect(await counters(caller.id, caller.tokenId, [bad, down])).toBe(before);
  });

  it('records a call no channel serves with channel 0, and nothing for a request whose token is unknown', async () => {
    const caller = await newCaller();
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['err-none'], groups: ['vip'] });
    expect((await chat(caller.apiKey, 'err-none')).status).toBe(404);
    const before = (
      await server.ctx.storage.db
        .selectFrom('logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('type', '=', 5)
        .executeTakeFirstOrThrow()
    ).n;
    expect((await chat('sk-not-a-token-of-anyone', 'err-none')).status).toBe(401);
    await flushRelay(server.ctx);
    const rows = await logsOf(caller.id, 5);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ channel_id: 0, model_name: 'err-none', quota: 0 });
    expect(JSON.parse(rows[0]!.other)).toMatchObject({ status_code: 404, error_code: 'model_not_found', admin_info: { use_channel: [] } });
    const after = (
      await server.ctx.storage.db
        .selectFrom('logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('type', '=', 5)
        .executeTakeFirstOrThrow()
    ).n;
    expect(Number(after)).toBe(Number(before) + 1);
  });

  it('records a failed task submit and a Realtime session whose upstream is down', async () => {
    const caller = await newCaller();
    const sunoChannel = await createRelayChannel(server.ctx, {
      type: 36,
      key: 'suno-key',
      baseURL: suno.url,
      models: ['suno_music'],
      autoBan: false,
    });
    suno.failSubmits(503, { error: { message: `queue full at 10.20.30.40:8443 for ${echoedKey}` } }, 1);
    const submit = await fetch(`${server.url}/suno/submit/music`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a song' }),
    });
    expect(submit.status).toBeGreaterThanOrEqual(500);
    const realtimeModel = 'gpt-4o-realtime-preview-2025-06-03';
    const realtimeChannel = await createRelayChannel(server.ctx, {
      key: 'down',
      baseURL: `http://127.0.0.1:${refusedPort}`,
      models: [realtimeModel],
      autoBan: false,
    });
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/realtime?model=${realtimeModel}`, {
      headers: { Authorization: `Bearer ${caller.apiKey}` },
      perMessageDeflate: false,
    });
    socket.on('error', () => undefined);
    const closed = await new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    expect(closed).toBe(1011);
    await flushRelay(server.ctx);
    const rows = await logsOf(caller.id);
    expect(rows.map((row) => row.type)).toEqual([5, 5]);
    const [taskRow, realtimeRow] = rows;
    expect(taskRow).toMatchObject({ model_name: 'suno_music', channel_id: sunoChannel, quota: 0 });
    expect(JSON.parse(taskRow!.other)).toMatchObject({
      request_path: '/suno/submit/music',
      admin_info: { use_channel: [String(sunoChannel)], upstream_status: 503 },
    });
    expectRedacted(taskRow!.content);
    expect(realtimeRow).toMatchObject({ model_name: realtimeModel, channel_id: realtimeChannel, quota: 0, is_stream: 1 });
    expect(JSON.parse(realtimeRow!.other)).toMatchObject({
      status_code: 502,
      error_code: 'upstream_unreachable',
      request_path: '/v1/realtime',
    });
    expect(realtimeRow!.content).not.toContain(String(refusedPort));
  });

  it('keeps the ledger exact: type 2 rows equal the counters with error rows among them', async () => {
    const caller = await newCaller();
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['err-ok'] });
    for (let i = 0; i < 3; i += 1) {
      expect((await chat(caller.apiKey, 'err-ok')).status).toBe(200);
      expect((await chat(caller.apiKey, 'err-5xx')).status).toBe(500);
    }
    await flushRelay(server.ctx);
    const consumed = await logsOf(caller.id, 2);
    expect(consumed).toHaveLength(3);
    expect(await logsOf(caller.id, 5)).toHaveLength(3);
    await expectLedgerExact(server.ctx.storage, startQuota);
  });
});
