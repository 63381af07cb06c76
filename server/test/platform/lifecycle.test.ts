import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

/** An OpenAI-wire upstream that streams `pieces` words, one every 100 ms, and reports its usage at the end. */
async function startSlowUpstream() {
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const pieces = Number(String(body.model).split('-').at(-1));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        if (sent < pieces) {
          res.write(chunk({ content: ` word${sent}` }));
          sent += 1;
          return;
        }
        clearInterval(timer);
        res.write(chunk({}, 'stop'));
        res.write(
          `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage: { prompt_tokens: 9, completion_tokens: pieces * 2, total_tokens: 9 + pieces * 2 } })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      }, 100);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads a streamed chat answer to its end (or until the connection is cut): the text and whether [DONE] came. */
async function readStream(response: Response): Promise<{ text: string; isDone: boolean }> {
  let raw = '';
  const decoder = new TextDecoder();
  try {
    for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) raw += decoder.decode(piece, { stream: true });
  } catch {
    // cut by the server
  }
  let text = '';
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    text += (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? '';
  }
  return { text, isDone: raw.includes('data: [DONE]') };
}

describe('health checks and graceful shutdown', () => {
  let upstream: Awaited<ReturnType<typeof startSlowUpstream>>;
  let database: TestDatabase;

  beforeAll(async () => {
    upstream = await startSlowUpstream();
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await upstream?.close();
    await database?.drop();
  });

  async function serverWithChannel(env: Record<string, string> = {}) {
    const server = await startTestServer({ database, env });
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'slow-10': 1, 'slow-60': 1 }));
    const channelId = await createRelayChannel(server.ctx, { key: 'sk-slow', baseURL: upstream.url, models: ['slow-10', 'slow-60'] });
    const userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
    const token = await createRelayToken(server.ctx, userId);
    return { server, channelId, userId, apiKey: token.apiKey };
  }

  const streamChat = (server: TestServer, apiKey: string, model: string) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'count' }] }),
    });

  /** The consume log rows of a user, read by a fresh instance on the same database after the first one stopped. */
  async function logsAfterwards(userId: number) {
    const reader = await startTestServer({ database });
    try {
      return await reader.ctx.storage.db
        .selectFrom('logs')
        .select(['completion_tokens', 'prompt_tokens', 'quota', 'model_name'])
        .where('user_id', '=', userId)
        .where('type', '=', 2)
        .execute();
    } finally {
      await reader.stop();
    }
  }

  it('/healthz answers without the database; /readyz checks the database (and Redis when configured)', async () => {
    const env: Record<string, string> = process.env.TEST_REDIS_URL ? { REDIS_CONN_STRING: process.env.TEST_REDIS_URL } : {};
    const server = await startTestServer({ database, env });
    try {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'ready',
        checks: env.REDIS_CONN_STRING ? { database: 'ok', redis: 'ok' } : { database: 'ok' },
      });
      expect(ready.headers.get('cache-control')).toBe('no-store');
    } finally {
      await server.stop();
    }
  });

  it('shutdown lets a stream in flight finish and bills it; /readyz turns 503 and new requests are refused meanwhile', async () => {
    const { server, userId, apiKey } = await serverWithChannel();
    const answer = await streamChat(server, apiKey, 'slow-10');
    expect(answer.status).toBe(200);
    const reading = readStream(answer);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const stopping = server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Not listening any more: a new connection is refused (a kept-alive one would get 503 Connection: close).
    await expect(fetch(`${server.url}/readyz`)).rejects.toThrow();
    expect(server.ctx.lifecycle.isDraining).toBe(true);
    const { text, isDone } = await reading;
    expect(isDone).toBe(true);
    expect(text).toBe(Array.from({ length: 10 }, (_, index) => ` word${index}`).join(''));
    await stopping;
    const logs = await logsAfterwards(userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ model_name: 'slow-10', prompt_tokens: 9, completion_tokens: 20 });
  });

  it("a request on a kept-alive connection during the drain gets 503 with Connection: close, in its API's shape", async () => {
    const { server, apiKey } = await serverWithChannel();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        http
          .get(`${server.url}${path}`, { agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
            let body = '';
            res.on('data', (piece: Buffer) => (body += piece.toString('utf8')));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          })
          .on('error', reject);
      });
    try {
      expect((await get('/healthz')).status).toBe(200);
      // Keep the server busy with a stream so the drain is still under way.
      const streaming = readStream(await streamChat(server, apiKey, 'slow-10'));
      server.ctx.lifecycle.isDraining = true;
      const refused = await get('/v1/models');
      expect(refused.status).toBe(503);
      expect(refused.headers.connection).toBe('close');
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'server_shutting_down' } });
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toEqual({ status: 'shutting_down' });
      const api = await get('/api/status');
      expect(api.status).toBe(503);
      expect(JSON.parse(api.body)).toMatchObject({ success: false });
      await streaming;
    } finally {
      agent.destroy();
      await server.stop();
    }
  });

  it('a stream longer than SHUTDOWN_TIMEOUT is cut when the time is up and billed for what it produced', async () => {
    const { server, userId, apiKey } = await serverWithChannel({ SHUTDOWN_TIMEOUT: '1' });
    const answer = await streamChat(server, apiKey, 'slow-60');
    const reading = readStream(answer);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const startedAt = Date.now();
    await server.close();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
    expect(Date.now() - startedAt).toBeLessThan(4000);
    const { text, isDone } = await reading;
    expect(isDone).toBe(false);
    const words = text.split(' ').filter(Boolean).length;
    expect(words).toBeGreaterThan(5);
    expect(words).toBeLessThan(60);
    const logs = await logsAfterwards(userId);
    expect(logs).toHaveLength(1);
    // No usage came from the upstream: the streamed text is counted (at least one token per word streamed).
    expect(logs[0]!.completion_tokens).toBeGreaterThanOrEqual(words);
    expect(logs[0]!.quota).toBeGreaterThan(0);
  });

  it.each(storageKinds())(
    'a task submit cut at SHUTDOWN_TIMEOUT is still recorded and charged once its upstream accepts it (%s)',
    async (kind) => {
      // A Suno-API upstream that takes 2 s to accept a submit: longer than the drain's 1 s.
      const slowSuno = http.createServer((req, res) => {
        req.resume();
        req.on('end', () =>
          setTimeout(
            () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'success', data: 'up-slow' })),
            2000,
          ),
        );
      });
      await new Promise<void>((resolve) => slowSuno.listen(0, '127.0.0.1', resolve));
      const own = await createTestDatabase(kind);
      try {
        const server = await startTestServer({ database: own, env: { SHUTDOWN_TIMEOUT: '1', TASK_POLL_INTERVAL: '0' } });
        await setOption(server.ctx, 'TaskEnabled', 'true');
        await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1 }));
        await createRelayChannel(server.ctx, {
          type: 36,
          key: 'suno-key',
          baseURL: `http://127.0.0.1:${(slowSuno.address() as AddressInfo).port}`,
          models: ['suno_music'],
        });
        const userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
        const { apiKey } = await createRelayToken(server.ctx, userId);
        const submitting = fetch(`${server.url}/suno/submit/music`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'a song at closing time' }),
        }).then(
          (res) => res.status,
          () => 'cut',
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        await server.close();
        expect(await submitting).toBe('cut');

        // The upstream runs the task: it is recorded and charged exactly once, never lost with the shutdown.
        const reader = await startTestServer({ database: own });
        try {
          const db = reader.ctx.storage.db;
          const tasks = await db.selectFrom('tasks').select(['upstream_id', 'quota']).where('user_id', '=', userId).execute();
          expect(tasks.map((task) => [task.upstream_id, Number(task.quota)])).toEqual([['up-slow', 50_000]]);
          const logs = await db.selectFrom('logs').select('quota').where('user_id', '=', userId).where('type', '=', 2).execute();
          expect(logs.map((log) => Number(log.quota))).toEqual([50_000]);
          const user = await db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
          expect(Number(user.quota)).toBe(10_000_000 - 50_000);
        } finally {
          await reader.stop();
        }
      } finally {
        await own.drop();
        await new Promise((resolve) => slowSuno.close(resolve));
      }
    },
    20_000,
  );
});
