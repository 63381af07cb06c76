import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * One local upstream for the three kinds of call, each answering after `delayMs`, counting the calls
 * in flight across all of them: Suno-API submits, OpenAI chat completions, and an OpenAI Realtime
 * WebSocket (a session counts while it is open).
 */
async function startSlowUpstream(delayMs: number) {
  let inFlight = 0;
  let maxInFlight = 0;
  const arrivals: string[] = [];
  const enter = (what: string) => {
    arrivals.push(what);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
  };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      enter(req.url ?? '');
      setTimeout(() => {
        inFlight -= 1;
        const send = (payload: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
        if (req.url?.startsWith('/suno/submit/')) return send({ code: 'success', data: `up-${arrivals.length}` });
        if (req.url?.startsWith('/suno/fetch')) return send({ code: 'success', data: [] });
        return send({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
        });
      }, delayMs);
    });
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      enter('realtime');
      ws.on('close', () => (inFlight -= 1));
      ws.send(JSON.stringify({ type: 'session.created', event_id: 'e1', session: { id: 's1', object: 'realtime.session' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    get maxInFlight() {
      return maxInFlight;
    },
    reset() {
      arrivals.length = 0;
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/**
 * Chat, task submits and Realtime sessions go through the one attempt loop and count against the
 * same limits: a token's concurrency and a channel's requests per minute (docs/relay.md, "Limits and
 * routing").
 */
describe.each(storageKinds())('the same limits for chat, tasks and Realtime on %s', (kind) => {
  let server: TestServer;
  let upstream: Awaited<ReturnType<typeof startSlowUpstream>>;

  beforeAll(async () => {
    upstream = await startSlowUpstream(400);
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1, suno_lyrics: 0.02 }));
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075, 'gpt-realtime': 2 }));
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  const post = (apiKey: string, path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const submit = (apiKey: string) => post(apiKey, '/suno/submit/music', { prompt: 'a song', tags: 'pop' });
  const chat = (apiKey: string) =>
    post(apiKey, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  const quotaOf = async (userId: number) => {
    await flushRelay(server.ctx);
    const row = await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
    return Number(row.quota);
  };

  it('a token at concurrency 1: two submits, or a chat call and a submit, never reach the upstream at once', async () => {
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: upstream.url, models: ['suno_music'] });
    await createRelayChannel(server.ctx, { key: 'chat-key', baseURL: upstream.url, models: ['gpt-4o-mini'] });
    const user = await createRelayUser(server.ctx, { quota: 10_000_000 });
    const token = await createRelayToken(server.ctx, user, { maxConcurrency: 1 });

    upstream.reset();
    const submits = await Promise.all([submit(token.apiKey), submit(token.apiKey)]);
    expect(submits.map((answer) => answer.status).sort()).toEqual([200, 429]);
    expect(submits.find((answer) => answer.status === 429)!.body).toMatchObject({
      code: 'error',
      message: expect.stringMatching(/concurrent request limit \(1\)/),
    });
    expect(upstream.arrivals).toHaveLength(1);
    expect(upstream.maxInFlight).toBe(1);
    // Only the accepted submit is billed: 0.1 × 500,000.
    expect(await quotaOf(user)).toBe(10_000_000 - 50_000);

    upstream.reset();
    const mixed = await Promise.all([chat(token.apiKey), submit(token.apiKey)]);
    expect(mixed.map((answer) => answer.status).sort()).toEqual([200, 429]);
    expect(upstream.maxInFlight).toBe(1);

    // With the concurrency queue on, the same burst waits its turn: both served, one at a time.
    await setOption(server.ctx, 'ConcurrencyQueueEnabled', 'true');
    try {
      upstream.reset();
      const queued = await Promise.all([chat(token.apiKey), submit(token.apiKey), submit(token.apiKey)]);
      expect(
        queued.map((answer) => answer.status),
        JSON.stringify(queued),
      ).toEqual([200, 200, 200]);
      expect(upstream.maxInFlight).toBe(1);
    } finally {
      await setOption(server.ctx, 'ConcurrencyQueueEnabled', 'false');
    }
  }, 60_000);

  it('a channel at RPM 1 takes one submit a minute; the next goes elsewhere or gets 429', async () => {
    await createRelayChannel(server.ctx, {
      type: 36,
      key: 'suno-rpm',
      baseURL: upstream.url,
      models: ['suno_lyrics'],
      setting: { rpm_limit: 1 },
    });
    const user = await createRelayUser(server.ctx, { quota: 10_000_000 });
    const token = await createRelayToken(server.ctx, user);
    upstream.reset();
    const first = await post(token.apiKey, '/suno/submit/lyrics', { prompt: 'words' });
    expect(first.status).toBe(200);
    const second = await post(token.apiKey, '/suno/submit/lyrics', { prompt: 'more words' });
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ code: 'error', message: expect.stringMatching(/per-minute limit/) });
    expect(upstream.arrivals).toHaveLength(1);
    // Billed once: 0.02 × 500,000.
    expect(await quotaOf(user)).toBe(10_000_000 - 10_000);
  }, 60_000);

  it('a Realtime session holds its token slot while open: a second session or a chat call is refused until it closes', async () => {
    await createRelayChannel(server.ctx, { key: 'rt-key', baseURL: upstream.url, models: ['gpt-realtime'] });
    const user = await createRelayUser(server.ctx, { quota: 100_000_000 });
    const token = await createRelayToken(server.ctx, user, { maxConcurrency: 1 });
    const wsBase = server.url.replace(/^http/, 'ws');
    const open = () =>
      new Promise<{ ws: WebSocket; first: any }>((resolve, reject) => {
        const ws = new WebSocket(`${wsBase}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${token.apiKey}` } });
        ws.once('message', (data) => resolve({ ws, first: JSON.parse(data.toString()) }));
        ws.once('error', reject);
      });
    const session = await open();
    expect(session.first.type).toBe('session.created');
    const refused = await open();
    expect(refused.first).toMatchObject({ type: 'error', error: { code: 'token_concurrency_exceeded' } });
    refused.ws.close();
    const chatRefused = await chat(token.apiKey);
    expect(chatRefused.status).toBe(429);

    const closed = new Promise((resolve) => session.ws.once('close', resolve));
    session.ws.close();
    await closed;
    // The slot is free once the session has ended and settled.
    await expect.poll(async () => (await chat(token.apiKey)).status, { timeout: 5_000 }).toBe(200);
  }, 60_000);

  it('ModelRequestRateLimitSuccessCount counts submits with chat; a refused submit gives its slot back', async () => {
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-rate', baseURL: upstream.url, models: ['suno_music'] });
    await createRelayChannel(server.ctx, { key: 'chat-rate', baseURL: upstream.url, models: ['gpt-4o-mini'] });
    await setOption(server.ctx, 'ModelRequestRateLimitDurationMinutes', '1');
    await setOption(server.ctx, 'ModelRequestRateLimitSuccessCount', '2');
    await setOption(server.ctx, 'ModelRequestRateLimitEnabled', 'true');
    try {
      const user = await createRelayUser(server.ctx, { quota: 10_000_000 });
      const token = await createRelayToken(server.ctx, user);
      expect((await chat(token.apiKey)).status).toBe(200);
      expect((await submit(token.apiKey)).status).toBe(200);
      const third = await submit(token.apiKey);
      expect(third.status).toBe(429);
      expect(third.body).toMatchObject({ code: 'error', message: expect.stringMatching(/at most 2 successful/) });
      expect((await chat(token.apiKey)).status).toBe(429);

      // A submit the wallet cannot pay (0.1 × 500,000 > 20,000) is refused after its slot was taken, and gives it back.
      const poor = await createRelayUser(server.ctx, { quota: 20_000 });
      const poorToken = await createRelayToken(server.ctx, poor);
      expect((await submit(poorToken.apiKey)).status).toBe(403);
      expect((await chat(poorToken.apiKey)).status).toBe(200);
      expect((await chat(poorToken.apiKey)).status).toBe(200);
      expect((await chat(poorToken.apiKey)).status).toBe(429);
    } finally {
      await setOption(server.ctx, 'ModelRequestRateLimitEnabled', 'false');
    }
  }, 60_000);

  it("a submit's prompt is checked against the sensitive words as a chat prompt is: refused before any upstream call", async () => {
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-words', baseURL: upstream.url, models: ['suno_music'] });
    await setOption(server.ctx, 'SensitiveWords', 'forbidden\nblocked');
    await setOption(server.ctx, 'CheckSensitiveOnPromptEnabled', 'true');
    await setOption(server.ctx, 'CheckSensitiveEnabled', 'true');
    try {
      const user = await createRelayUser(server.ctx, { quota: 10_000_000 });
      const token = await createRelayToken(server.ctx, user);
      upstream.reset();
      const refused = await post(token.apiKey, '/suno/submit/music', { prompt: 'a song', tags: 'Forbidden pop' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'error', message: expect.stringContaining('forbidden') });
      expect(upstream.arrivals).toHaveLength(0);
      expect(await quotaOf(user)).toBe(10_000_000);
      expect((await submit(token.apiKey)).status).toBe(200);
    } finally {
      await setOption(server.ctx, 'CheckSensitiveEnabled', 'false');
    }
  }, 60_000);
});
