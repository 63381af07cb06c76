import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer, relayOf } from '../helpers/test-server.js';
import { eventTypes, openClient, waitFor } from '../helpers/realtime-upstream.js';
import { rawRequest } from '../helpers/raw-http.js';
import { responseDone, startHostileRealtime, type HostileRealtime } from '../helpers/hostile-realtime.js';

/** The Realtime relay against a misbehaving upstream and a hostile client (real sockets both sides). */
describe('GET /v1/realtime with hostile peers', () => {
  let server: TestServer;
  let upstream: HostileRealtime;
  let wsBase: string;

  beforeAll(async () => {
    upstream = await startHostileRealtime();
    // A 1 s relay timeout: the handshake's deadline.
    server = await startTestServer({ env: { RELAY_TIMEOUT: '1' } });
    wsBase = server.url.replace(/^http/, 'ws');
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  async function logsOf(userId: number, count = 1) {
    const deadline = Date.now() + 5000;
    for (;;) {
      await flushRelay(server.ctx);
      const logs = await server.ctx.storage.db.selectFrom('logs').selectAll().where('user_id', '=', userId).where('type', '=', 2).execute();
      if (logs.length >= count || Date.now() > deadline) return logs;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const heldOf = (userId: number) => [...relayOf(server.ctx).access.cachedUsers()].find((cached) => cached.id === userId)?.held;

  async function session(channelKey: string, model: string, quota?: number) {
    const userId = await createRelayUser(server.ctx, { quota });
    const token = await createRelayToken(server.ctx, userId);
    const channelId = await createRelayChannel(server.ctx, { key: channelKey, baseURL: upstream.url, models: [model], autoBan: false });
    const client = openClient(`${wsBase}/v1/realtime?model=${model}`, { headers: { Authorization: `Bearer ${token.apiKey}` } });
    return { userId, channelId, client };
  }

  it('an upstream that trickles its refusal forever is given up at the relay timeout, nothing held', async () => {
    const { userId, client } = await session('trickle-key', 'gpt-realtime-2025-08-28');
    await client.opened;
    const startedAt = Date.now();
    const closed = await Promise.race([client.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 6000))]);
    expect(closed).toMatchObject({ code: 1011 });
    expect(Date.now() - startedAt).toBeLessThan(4000);
    expect(JSON.parse(client.frames[0]!.text).error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    expect(heldOf(userId)).toBe(0);
    // The refusal's connection is dropped, not left trickling.
    await upstream.ended.at(-1);
  });

  it('an upstream close reason reaches the client without the channel key or the upstream address', async () => {
    const channelKey = 'reason-sk-proj-Hq3Lm8Zt5Wv2Xy7Rk4Np9Bc1';
    const { client } = await session(channelKey, 'gpt-realtime');
    await client.opened;
    const closed = await client.closed;
    expect(closed.code).toBe(4000);
    expect(closed.reason).not.toContain('Hq3Lm8Zt5');
    expect(closed.reason).not.toContain('10.20.30.40');
    expect(closed.reason).toContain('Incorrect API key provided');
  });

  it('a flood of response.done after the quota ran out ends the session once and bills every response once', async () => {
    // gpt-realtime-mini (ratio 0.3, completion 4): each response costs 0.3 × (1000 + 1000 × 4) = 1500, above the quota.
    const { userId, client } = await session('flood-key', 'gpt-realtime-mini', 1000);
    await client.opened;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const done = responseDone({ input_tokens: 1000, output_tokens: 1000 });
      client.socket.send(JSON.stringify({ type: 'mock.send', frames: [done], repeat: 50 }));
      const closed = await client.closed;
      expect(closed.code).toBe(1008);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('warning', onWarning);
    }
    // One ending: not a close listener and a timer per response.done (Node warns past 10 listeners).
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    expect(eventTypes(client.frames).filter((type) => type === 'error')).toHaveLength(1);
    const logs = await logsOf(userId);
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!.other).responses).toBe(50);
    expect(Number(logs[0]!.quota)).toBe(50 * 1500);
    expect(heldOf(userId)).toBe(0);
  });

  it('token counts sent as decimal strings are billed as the same numbers are', async () => {
    const { userId, client } = await session('strings-key', 'gpt-4o-realtime-preview');
    await client.opened;
    const usage = {
      input_tokens: 120,
      output_tokens: 80,
      input_token_details: { text_tokens: 20, audio_tokens: 100, cached_tokens: 10 },
      output_token_details: { text_tokens: 50, audio_tokens: 30 },
    };
    const asStrings = JSON.parse(JSON.stringify(usage, (_key, value: unknown) => (typeof value === 'number' ? String(value) : value)));
    client.socket.send(JSON.stringify({ type: 'mock.send', frames: [responseDone(usage, 'r1'), responseDone(asStrings, 'r2')] }));
    await waitFor(() => eventTypes(client.frames).filter((type) => type === 'response.done').length === 2, 'two response.done');
    client.socket.close(1000);
    await client.closed;
    const logs = await logsOf(userId);
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({
      responses: 2,
      text_input: 40,
      audio_input: 200,
      cache_text_tokens: 20,
      text_output: 100,
      audio_output: 60,
    });
    expect(logs[0]!.prompt_tokens).toBe(240);
    expect(logs[0]!.completion_tokens).toBe(160);
  });

  it('a cached split larger than the cached total bills no more tokens as cached than the total', async () => {
    const { userId, client } = await session('split-key', 'gpt-4o-realtime-preview-2025-06-03');
    await client.opened;
    // No cached token in all, yet a split saying every audio token was cached.
    const usage = {
      input_tokens: 100,
      output_tokens: 0,
      input_token_details: { text_tokens: 0, audio_tokens: 100, cached_tokens: 0, cached_tokens_details: { audio_tokens: 100 } },
    };
    client.socket.send(JSON.stringify({ type: 'mock.send', frames: [responseDone(usage)] }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    client.socket.close(1000);
    await client.closed;
    const logs = await logsOf(userId);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ audio_input: 100, cache_audio_tokens: 0, cache_tokens: 0 });
    // 2.5 × 100 audio tokens × audio ratio 8, none at the cache ratio.
    expect(Number(logs[0]!.quota)).toBe(2000);
  });

  it('a running total past what one session can be billed does not unbalance the holds of the same user', async () => {
    // ModelRatio 1,000,000 (the option's ceiling) and every count at its ceiling: ~4e15 quota a response.
    const ratios = JSON.parse(server.ctx.options.get('ModelRatio')) as Record<string, number>;
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ ...ratios, 'hostile-realtime': 1_000_000 }));
    try {
      const userId = await createRelayUser(server.ctx, { quota: 10_000_000_000 });
      const token = await createRelayToken(server.ctx, userId);
      await createRelayChannel(server.ctx, { key: 'huge-key', baseURL: upstream.url, models: ['hostile-realtime'] });
      await createRelayChannel(server.ctx, { key: 'steady-key', baseURL: upstream.url, models: ['gpt-realtime-mini-2025-10-06'] });
      const open = (model: string) =>
        openClient(`${wsBase}/v1/realtime?model=${model}`, { headers: { Authorization: `Bearer ${token.apiKey}` } });
      // A steady session whose hold grows to an odd amount: 0.3 × 1010 = 303.
      const steady = open('gpt-realtime-mini-2025-10-06');
      await steady.opened;
      steady.socket.send(JSON.stringify({ type: 'mock.send', frames: [responseDone({ input_tokens: 1010, output_tokens: 0 })] }));
      await waitFor(() => eventTypes(steady.frames).includes('response.done'), 'steady response.done');
      await waitFor(() => heldOf(userId) === 303, 'steady hold of 303');

      const huge = open('hostile-realtime');
      await huge.opened;
      const ceiling = {
        input_tokens: 1e12,
        output_tokens: 1e12,
        input_token_details: { text_tokens: 1e12, audio_tokens: 1e12 },
        output_token_details: { text_tokens: 1e12, audio_tokens: 1e12 },
      };
      huge.socket.send(JSON.stringify({ type: 'mock.send', frames: [responseDone(ceiling)], repeat: 3 }));
      await huge.closed;
      // The huge session is over and billed: the steady session's 303 is all that is held.
      await waitFor(() => heldOf(userId) !== undefined && heldOf(userId)! < 1e6, 'huge session settled');
      expect(heldOf(userId)).toBe(303);
      steady.socket.close(1000);
      await steady.closed;
      await waitFor(() => heldOf(userId) !== 303, 'steady session settled');
      expect(heldOf(userId)).toBe(0);
      // Each billed once; the huge one at the ceiling of one request's bill (2^40).
      const quotas = (await logsOf(userId, 2)).map((log) => Number(log.quota)).sort((a, b) => a - b);
      expect(quotas).toEqual([303, 2 ** 40]);
    } finally {
      await setOption(server.ctx, 'ModelRatio', JSON.stringify(ratios));
    }
  });

  it('an upstream that never answers the close is dropped after the grace, and the session billed once', async () => {
    const { userId, client } = await session('deaf-key', 'gpt-4o-mini-realtime-preview-2024-12-17');
    await client.opened;
    await waitFor(() => eventTypes(client.frames).includes('session.created'), 'session.created');
    const closingAt = Date.now();
    client.socket.close(1000);
    await client.closed;
    await upstream.ended.at(-1);
    // The bridge's 5 s grace, not ws's 30 s close timeout.
    expect(Date.now() - closingAt).toBeLessThan(7000);
    const logs = await logsOf(userId);
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ ws: true, responses: 0 });
    expect(heldOf(userId)).toBe(0);
  });

  it('an upgrade the WebSocket handshake refuses after admission gives its success slot back', async () => {
    const names = ['ModelRequestRateLimitSuccessCount', 'ModelRequestRateLimitDurationMinutes', 'ModelRequestRateLimitEnabled'] as const;
    const saved = names.map((name) => server.ctx.options.get(name));
    // One success in flight or billed per 10 minutes.
    await setOption(server.ctx, 'ModelRequestRateLimitSuccessCount', '1');
    await setOption(server.ctx, 'ModelRequestRateLimitDurationMinutes', '10');
    await setOption(server.ctx, 'ModelRequestRateLimitEnabled', 'true');
    try {
      const userId = await createRelayUser(server.ctx);
      const token = await createRelayToken(server.ctx, userId);
      await createRelayChannel(server.ctx, { key: 'slot-key', baseURL: upstream.url, models: ['gpt-4o-realtime-preview-2024-10-01'] });
      // Admitted (token, model, rate limit), then refused by the handshake itself: an unsupported version.
      for (let i = 0; i < 2; i += 1) {
        const refused = await rawRequest(server.url, {
          method: 'GET',
          path: '/v1/realtime?model=gpt-4o-realtime-preview-2024-10-01',
          headers: {
            Authorization: `Bearer ${token.apiKey}`,
            Connection: 'Upgrade',
            Upgrade: 'websocket',
            'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'Sec-WebSocket-Version': '99',
          },
          size: 0,
          read: 'while-sending',
          holdMs: 500,
        });
        // Not 429: the first refusal did not keep the slot.
        expect(refused.status).toBe(400);
      }
      const client = openClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview-2024-10-01`, {
        headers: { Authorization: `Bearer ${token.apiKey}` },
      });
      await client.opened;
      await waitFor(() => eventTypes(client.frames).includes('session.created'), 'session.created');
      client.socket.close(1000);
      await client.closed;
    } finally {
      for (const [i, name] of names.entries()) await setOption(server.ctx, name, saved[i]!);
    }
  });
});
