import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeLabel } from '../../src/metrics/metrics.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { eventTypes, openClient, startMockRealtime, waitFor } from '../helpers/realtime-upstream.js';
import { startSunoUpstream } from '../helpers/suno-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The value of one sample line of the exposition text (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('Prometheus metrics at /metrics', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let apiKey: string;
  let channelId: number;
  const token = 'metrics-scrape-token-0123456789';

  beforeAll(async () => {
    server = await startTestServer();
    mock = await startMockOpenAi();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-metrics': 1, 'gpt-broken': 1 }));
    channelId = await createRelayChannel(server.ctx, { key: 'ok', baseURL: mock.url, models: ['gpt-metrics'] });
    await createRelayChannel(server.ctx, { key: 'fail-400', baseURL: mock.url, models: ['gpt-broken'], autoBan: false });
    apiKey = (await createRelayToken(server.ctx, await createRelayUser(server.ctx, { quota: 100_000_000 }))).apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  const scrape = (authorization?: string) => fetch(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });
  /** The quota of a model's consume logs: what its quota counter must equal. */
  const ledgerQuota = async (model: string) => {
    const rows = await server.ctx.storage.db
      .selectFrom('logs')
      .select('quota')
      .where('model_name', '=', model)
      .where('type', '=', 2)
      .execute();
    return rows.reduce((sum, row) => sum + Number(row.quota), 0);
  };

  it('is off by default (404), and needs the token once on (401 without or with a wrong one)', async () => {
    expect((await scrape()).status).toBe(404);
    await setOption(server.ctx, 'MetricsEnabled', 'true');
    expect((await scrape()).status).toBe(401);
    // No token set: nobody can read them.
    expect((await scrape('Bearer ')).status).toBe(401);
    await setOption(server.ctx, 'MetricsToken', token);
    expect((await scrape(`Bearer ${token}x`)).status).toBe(401);
    expect((await scrape(`Bearer ${token}`)).status).toBe(200);
  });

  it('counts relayed requests (direct lane, stream and not, and failures) with latency, first-token time, tokens and quota', async () => {
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const plain = await client.chat.completions.create({ model: 'gpt-metrics', messages: [{ role: 'user', content: 'hello metrics' }] });
    const stream = await client.chat.completions.create({
      model: 'gpt-metrics',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hello again' }],
    });
    let streamed: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
    await expect(client.chat.completions.create({ model: 'gpt-broken', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject(
      { status: 400 },
    );
    // A model nobody priced is not a label of its own (no channel serves it either: 404 model_not_found).
    await expect(
      client.chat.completions.create({ model: `unknown-${Date.now()}`, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 404 });
    await flushRelay(server.ctx);

    const response = await scrape(`Bearer ${token}`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    const route = '/v1/chat/completions';
    expect(sample(text, 'modelgate_relay_requests_total', { route, model: 'gpt-metrics', channel: String(channelId), status: '200' })).toBe(
      2,
    );
    expect(sample(text, 'modelgate_relay_requests_total', { route, model: 'gpt-broken', channel: 'none', status: '400' })).toBe(1);
    expect(sample(text, 'modelgate_relay_requests_total', { route, model: 'other', status: '404' })).toBe(1);
    expect(text).not.toContain('unknown-');
    expect(sample(text, 'modelgate_relay_request_duration_seconds_count', { route, model: 'gpt-metrics' })).toBe(2);
    expect(sample(text, 'modelgate_relay_time_to_first_token_seconds_count', { route, model: 'gpt-metrics' })).toBe(1);
    const prompt = plain.usage!.prompt_tokens + streamed!.prompt_tokens;
    const completion = plain.usage!.completion_tokens + streamed!.completion_tokens;
    expect(sample(text, 'modelgate_relay_tokens_total', { model: 'gpt-metrics', kind: 'prompt' })).toBe(prompt);
    expect(sample(text, 'modelgate_relay_tokens_total', { model: 'gpt-metrics', kind: 'completion' })).toBe(completion);
    // The quota counter is the ledger's: the consume logs of the model add up to it.
    expect(sample(text, 'modelgate_relay_quota_total', { model: 'gpt-metrics' })).toBe(await ledgerQuota('gpt-metrics'));
    expect(sample(text, 'modelgate_relay_in_flight')).toBe(0);
    expect(sample(text, 'modelgate_channel_up', { channel: String(channelId) })).toBe(1);
    expect(sample(text, 'modelgate_billing_pending_logs')).toBe(0);
    expect(sample(text, 'modelgate_billing_flush_failures')).toBe(0);
    expect(sample(text, 'modelgate_billing_flush_lag_seconds')).toBeLessThan(5);
    expect(sample(text, 'modelgate_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('counts an escaped path under its route, and logs it so', async () => {
    const before = sample(await (await scrape(`Bearer ${token}`)).text(), 'modelgate_relay_requests_total', {
      route: '/v1/chat/completions',
      model: 'gpt-metrics',
      status: '200',
    });
    for (const path of ['/v1/chat/%63ompletions', '/%761/chat/%63ompletions']) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-metrics', messages: [{ role: 'user', content: 'escaped' }] }),
      });
      expect(res.status).toBe(200);
    }
    const text = await (await scrape(`Bearer ${token}`)).text();
    expect(text).not.toContain('%');
    expect(sample(text, 'modelgate_relay_requests_total', { route: '/v1/chat/completions', model: 'gpt-metrics', status: '200' })).toBe(
      before! + 2,
    );
    await flushRelay(server.ctx);
    const logs = await server.ctx.storage.db
      .selectFrom('logs')
      .select('other')
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    for (const log of logs) expect(JSON.parse(log.other).request_path).toBe('/v1/chat/completions');
  });

  it("counts task submits and Realtime sessions as relayed calls, their quota the ledger's", async () => {
    const suno = await startSunoUpstream('suno-key');
    const realtime = await startMockRealtime();
    try {
      await setOption(server.ctx, 'TaskEnabled', 'true');
      await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1 }));
      const sunoChannel = await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: suno.url, models: ['suno_music'] });
      const realtimeChannel = await createRelayChannel(server.ctx, { key: 'rt', baseURL: realtime.url, models: ['gpt-realtime'] });
      const submit = (prompt: string) =>
        fetch(`${server.url}/suno/submit/music`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt }),
        });
      suno.nextScript([{ status: 'SUCCESS' }]);
      expect((await submit('a song for the metrics')).status).toBe(200);
      // No channel serves lyrics: a failed submit, counted without a channel.
      const lyrics = await fetch(`${server.url}/suno/submit/lyrics`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'words' }),
      });
      expect(lyrics.status).toBe(404);

      const client = openClient(`${server.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-realtime`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      await client.opened;
      client.socket.send(JSON.stringify({ type: 'response.create' }));
      await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
      client.socket.close(1000, 'bye');
      await client.closed;
      await flushRelay(server.ctx);
      await expect.poll(() => ledgerQuota('gpt-realtime')).toBeGreaterThan(0);

      const text = await (await scrape(`Bearer ${token}`)).text();
      expect(
        sample(text, 'modelgate_relay_requests_total', {
          route: '/suno/submit/music',
          model: 'suno_music',
          channel: String(sunoChannel),
          status: '200',
        }),
      ).toBe(1);
      expect(sample(text, 'modelgate_relay_quota_total', { model: 'suno_music' })).toBe(await ledgerQuota('suno_music'));
      expect(sample(text, 'modelgate_relay_requests_total', { route: '/suno/submit/lyrics', channel: 'none', status: '404' })).toBe(1);
      expect(
        sample(text, 'modelgate_relay_requests_total', {
          route: '/v1/realtime',
          model: 'gpt-realtime',
          channel: String(realtimeChannel),
          status: '101',
        }),
      ).toBe(1);
      expect(sample(text, 'modelgate_relay_time_to_first_token_seconds_count', { route: '/v1/realtime', model: 'gpt-realtime' })).toBe(1);
      expect(sample(text, 'modelgate_relay_tokens_total', { model: 'gpt-realtime', kind: 'prompt' })).toBeGreaterThan(0);
      expect(sample(text, 'modelgate_relay_quota_total', { model: 'gpt-realtime' })).toBe(await ledgerQuota('gpt-realtime'));
    } finally {
      await suno.close();
      await realtime.close();
    }
  });

  it('labels an unpriced model served in self-use mode as other, success or not', async () => {
    const model = `self-use-${Date.now()}`;
    const selfUseChannel = await createRelayChannel(server.ctx, { key: 'ok', baseURL: mock.url, models: [model] });
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    try {
      const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'unpriced' }] });
      const text = await (await scrape(`Bearer ${token}`)).text();
      expect(
        sample(text, 'modelgate_relay_requests_total', {
          route: '/v1/chat/completions',
          model: 'other',
          channel: String(selfUseChannel),
          status: '200',
        }),
      ).toBe(1);
      expect(text).not.toContain(model);
    } finally {
      await setOption(server.ctx, 'SelfUseModeEnabled', 'false');
    }
  });

  it('the token is a root secret: never sent to an admin, who cannot set it either', async () => {
    const { client: admin } = await signedInClient(server, { username: `madm${Date.now()}`, role: 10 });
    const options = await admin.request('GET', '/api/option/');
    expect(JSON.stringify(options.body)).not.toContain(token);
    expect((await admin.request('PUT', '/api/option/', { key: 'MetricsToken', value: 'mine' })).body.success).toBe(false);
    expect((await admin.request('PUT', '/api/option/', { key: 'MetricsEnabled', value: 'false' })).body.success).toBe(false);
    const { client: root } = await signedInClient(server, { username: `mroot${Date.now()}`, role: 100 });
    const rootOptions = await root.request('GET', '/api/option/');
    expect(JSON.stringify(rootOptions.body)).not.toContain(token);
  });

  it('labels Gemini routes without the model name', () => {
    expect(routeLabel('/v1beta/models/gemini-2.0-flash:streamGenerateContent')).toBe('/v1beta/models/{model}:streamGenerateContent');
    expect(routeLabel('/v1/chat/completions')).toBe('/v1/chat/completions');
  });
});
