import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { DatabaseKind } from '../../src/config.js';
import { expectLedgerExact } from '../helpers/ledger-check.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

interface Upstream {
  url: string;
  /** The output limit (max_tokens or max_completion_tokens) of every request, null when it had none. */
  limits: Array<number | null>;
  close(): Promise<void>;
}

/**
 * A local OpenAI upstream that reports `prompt` prompt tokens and an answer of `answer` tokens:
 * an honest one stops at the request's output limit, an overrunning one ignores it (1 asked, 7
 * produced, as measured on a real misbehaving upstream).
 */
async function startUpstream(mode: 'honest' | 'overrun', prompt: number, answer: number): Promise<Upstream> {
  const limits: Array<number | null> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const limit =
        typeof body.max_completion_tokens === 'number'
          ? body.max_completion_tokens
          : typeof body.max_tokens === 'number'
            ? body.max_tokens
            : null;
      limits.push(limit);
      const completion = mode === 'honest' && limit !== null ? Math.min(answer, limit) : answer;
      const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
      const head = { id: 'c1', created: 1, model: body.model };
      const finish = completion < answer ? 'length' : 'stop';
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] })}\n\n`,
        );
        res.write(
          `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`,
        );
        res.write(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      const text = JSON.stringify({
        ...head,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: finish }],
        usage,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, limits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function chat(server: TestServer, apiKey: string, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'Say ok.' }], ...body }),
  });
  return { status: response.status, text: await response.text() };
}

async function quotaOf(server: TestServer, userId: number): Promise<number> {
  const row = await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.quota);
}

/** A server with gpt-4o-mini at 1 quota per prompt and per completion token, served by `upstream`. */
async function startOneTokenPerUnitServer(kind: DatabaseKind, upstream: Upstream): Promise<TestServer> {
  const server = await startTestServer({ kind });
  await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 1 }));
  await setOption(server.ctx, 'CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 1 }));
  await createRelayChannel(server.ctx, { key: 'k', baseURL: upstream.url, models: ['gpt-4o-mini'] });
  return server;
}

function expectNothingHeld(server: TestServer): void {
  for (const user of server.relay.access.cachedUsers()) expect(user.held).toBe(0);
}

/**
 * The holds of docs/billing.md ("Hold, settle, refund"): a call is held at its likely cost, and a
 * balance too low for a request's maximum runs its calls one at a time with the output limit it
 * pays for, so the people who can pay are served and the overdraft stays bounded.
 */
describe.each(storageKinds())('holds that serve what the balance can pay, on %s', (kind) => {
  it('serves gpt-5 to a $1 user, 100 parallel calls to a $20 user and 300 to a token limited to 10,000,000', async () => {
    const upstream = await startUpstream('honest', 20, 10);
    const server = await startTestServer({ kind });
    try {
      const { ctx } = server;
      await setOption(ctx, 'ModelRatio', JSON.stringify({ 'gpt-5': 0.625, 'priced-model': 2.5 }));
      await setOption(ctx, 'CompletionRatio', JSON.stringify({ 'gpt-5': 8, 'priced-model': 3 }));
      await createRelayChannel(ctx, { key: 'k', baseURL: upstream.url, models: ['gpt-5', 'priced-model'] });

      // $1 (QuotaPerUnit 500,000): the call costs about $0.0001; its worst case (128,000 output tokens) $1.28.
      const oneDollar = await createRelayUser(ctx, { quota: 500_000 });
      const oneDollarToken = await createRelayToken(ctx, oneDollar, { isUnlimited: true });
      const served = await chat(server, oneDollarToken.apiKey, { model: 'gpt-5' });
      expect(served.status, served.text).toBe(200);
      // Sent the output limit the balance pays for: prompt + limit at gpt-5's prices fits in $1.
      const limit = upstream.limits.at(-1)!;
      expect(limit).toBeGreaterThan(90_000);
      expect(limit).toBeLessThan(100_000);

      const twentyDollars = await createRelayUser(ctx, { quota: 10_000_000 });
      const twentyToken = await createRelayToken(ctx, twentyDollars, { isUnlimited: true });
      const parallel = await Promise.all(
        Array.from({ length: 100 }, (_, i) => chat(server, twentyToken.apiKey, { model: 'gpt-5', stream: i % 2 === 0 })),
      );
      expect(parallel.filter((call) => call.status !== 200).map((call) => call.text)).toEqual([]);

      const rich = await createRelayUser(ctx, { quota: 1_000_000_000 });
      const limited = await createRelayToken(ctx, rich, { remainQuota: 10_000_000 });
      const burst = await Promise.all(Array.from({ length: 300 }, () => chat(server, limited.apiKey, { model: 'priced-model' })));
      expect(burst.filter((call) => call.status !== 200).map((call) => call.text)).toEqual([]);

      await flushRelay(ctx);
      await expectLedgerExact(
        ctx.storage,
        new Map([
          [oneDollar, 500_000],
          [twentyDollars, 10_000_000],
          [rich, 1_000_000_000],
        ]),
      );
      expectNothingHeld(server);
    } finally {
      await server.stop();
      await upstream.close();
    }
  }, 120_000);

  it('an honest upstream: quota 1,000 and 400 parallel calls costing 20 each serve at least 10 and end at ≥ −100', async () => {
    const upstream = await startUpstream('honest', 13, 7);
    const server = await startOneTokenPerUnitServer(kind, upstream);
    try {
      const { ctx } = server;
      const user = await createRelayUser(ctx, { quota: 1_000 });
      const token = await createRelayToken(ctx, user, { isUnlimited: true });
      const calls = await Promise.all(
        Array.from({ length: 400 }, (_, i) => chat(server, token.apiKey, { model: 'gpt-4o-mini', stream: i % 2 === 1 })),
      );
      const served = calls.filter((call) => call.status === 200).length;
      expect(served).toBeGreaterThanOrEqual(10);
      for (const call of calls.filter((one) => one.status !== 200)) {
        expect(call.status, call.text).toBe(403);
        expect(call.text).toMatch(/for this request/);
      }
      await flushRelay(ctx);
      await expectLedgerExact(ctx.storage, new Map([[user, 1_000]]));
      expect(await quotaOf(server, user)).toBeGreaterThanOrEqual(-100);
      expectNothingHeld(server);
    } finally {
      await server.stop();
      await upstream.close();
    }
  }, 120_000);

  it('an upstream that overruns max_tokens: quota 1,000 and 200 parallel calls end at ≥ −1,000', async () => {
    const upstream = await startUpstream('overrun', 13, 7);
    const server = await startOneTokenPerUnitServer(kind, upstream);
    try {
      const { ctx } = server;
      const user = await createRelayUser(ctx, { quota: 1_000 });
      const token = await createRelayToken(ctx, user, { isUnlimited: true });
      const calls = await Promise.all(
        Array.from({ length: 200 }, (_, i) => chat(server, token.apiKey, { model: 'gpt-4o-mini', max_tokens: 1, stream: i % 2 === 1 })),
      );
      expect(calls.filter((call) => call.status === 200).length).toBeGreaterThan(0);
      await flushRelay(ctx);
      await expectLedgerExact(ctx.storage, new Map([[user, 1_000]]));
      expect(await quotaOf(server, user)).toBeGreaterThanOrEqual(-1_000);
      expectNothingHeld(server);
    } finally {
      await server.stop();
      await upstream.close();
    }
  }, 120_000);

  it('refuses a request the balance cannot pay even at its likely cost, saying so, and sends nothing upstream', async () => {
    const upstream = await startUpstream('honest', 13, 7);
    const server = await startOneTokenPerUnitServer(kind, upstream);
    try {
      const { ctx } = server;
      const user = await createRelayUser(ctx, { quota: 50 });
      const token = await createRelayToken(ctx, user, { isUnlimited: true });
      const refused = await chat(server, token.apiKey, { model: 'gpt-4o-mini', max_tokens: 400 });
      expect(refused.status).toBe(403);
      const error = JSON.parse(refused.text).error;
      expect(error.code).toBe('insufficient_user_quota');
      expect(error.message).toMatch(
        /^Insufficient user quota for this request: it needs about \d+ \(≈ \$[\d.e-]+\), and 50 \(≈ \$[\d.e-]+\) is left$/,
      );
      expect(upstream.limits).toEqual([]);

      const limitedUser = await createRelayUser(ctx, { quota: 1_000_000 });
      const limitedToken = await createRelayToken(ctx, limitedUser, { remainQuota: 50 });
      const tokenRefused = await chat(server, limitedToken.apiKey, { model: 'gpt-4o-mini', max_tokens: 400 });
      expect(tokenRefused.status).toBe(403);
      expect(JSON.parse(tokenRefused.text).error.code).toBe('insufficient_token_quota');

      // A request it can pay at its likely cost (the prompt and HoldOutputTokens, 500) is served, with the output limit the balance pays for.
      const modest = await createRelayUser(ctx, { quota: 600 });
      const modestToken = await createRelayToken(ctx, modest, { isUnlimited: true });
      const served = await chat(server, modestToken.apiKey, { model: 'gpt-4o-mini' });
      expect(served.status, served.text).toBe(200);
      expect(upstream.limits).toHaveLength(1);
      expect(upstream.limits[0]).toBeGreaterThan(500);
      expect(upstream.limits[0]).toBeLessThan(600);
    } finally {
      await server.stop();
      await upstream.close();
    }
  }, 60_000);
});
