import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.js';
import { maxUsageTokens } from '../../src/relay/billing/usage-count.js';
import { expectLedgerExact } from '../helpers/ledger-check.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay } from '../helpers/relay-fixtures.js';
import { startTestServer, relayOf } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds } from '../helpers/test-storage.js';

/** Usage values an upstream may send, as raw JSON text; the request's `odd:N` picks one. */
const oddValues = [
  '13.5',
  '3e9',
  '1e300',
  '-5',
  '-1e300',
  '"12"',
  '"NaN"',
  '"1e3"',
  'null',
  'true',
  '{"a":1}',
  '2147483648',
  '1000000001',
  '9007199254740993',
];

/**
 * A local upstream speaking the OpenAI (non-stream and SSE), Anthropic Messages and Gemini
 * generateContent wires, whose usage counters are the odd value the request names (`odd:N`), or
 * sane counts (5 and 3) for `odd:-1`.
 */
async function startOddUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const index = Number(/odd:(-?\d+)/.exec(raw)?.[1] ?? -1);
      const odd = (sane: number) => (index >= 0 ? oddValues[index]! : String(sane));
      const url = req.url ?? '';
      const send = (text: string) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text);
      };
      if (url.includes('/v1/messages')) {
        return send(
          `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":${odd(5)},"output_tokens":${odd(3)},"cache_read_input_tokens":${odd(0)}}}`,
        );
      }
      if (url.includes(':generateContent')) {
        return send(
          `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":${odd(5)},"candidatesTokenCount":${odd(3)},"totalTokenCount":${odd(8)}}}`,
        );
      }
      const usage = `{"prompt_tokens":${odd(5)},"completion_tokens":${odd(3)},"total_tokens":${odd(8)},"prompt_tokens_details":{"cached_tokens":${odd(0)}}}`;
      if (raw.includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const head = '"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini"';
        res.write(`data: {${head},"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n`);
        res.write(`data: {${head},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
        res.write(`data: {${head},"choices":[],"usage":${usage}}\n\n`);
        return res.end('data: [DONE]\n\n');
      }
      send(
        `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":${usage}}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const routes = [
  { model: 'gpt-4o-mini', stream: false },
  { model: 'gpt-4o-mini', stream: true },
  { model: 'claude-3-5-haiku-20241022', stream: false },
  { model: 'gemini-2.0-flash', stream: false },
];

describe.each(storageKinds())('odd upstream usage on %s', (kind) => {
  it('is clamped to safe counts: the ledger stays exact, other users keep being billed, shutdown flushes everything', async () => {
    const upstream = await startOddUpstream();
    const database = await createTestDatabase(kind);
    const server = await startTestServer({ kind, database });
    let isStopped = false;
    try {
      const { ctx } = server;
      const startQuota = new Map<number, number>();
      const victim = await createRelayUser(ctx, { quota: 4_000_000_000_000 });
      const other = await createRelayUser(ctx, { quota: 1_000_000 });
      startQuota.set(victim, 4_000_000_000_000).set(other, 1_000_000);
      const victimToken = await createRelayToken(ctx, victim, { remainQuota: 4_000_000_000_000 });
      const otherToken = await createRelayToken(ctx, other, { remainQuota: 1_000_000 });
      await createRelayChannel(ctx, { key: 'k', baseURL: upstream.url, models: ['gpt-4o-mini'] });
      await createRelayChannel(ctx, { type: 14, key: 'k', baseURL: upstream.url, models: ['claude-3-5-haiku-20241022'] });
      await createRelayChannel(ctx, { type: 24, key: 'k', baseURL: upstream.url, models: ['gemini-2.0-flash'] });

      const call = async (apiKey: string, model: string, stream: boolean, tag: number) => {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model,
            stream,
            ...(stream ? { stream_options: { include_usage: true } } : {}),
            max_tokens: 10,
            messages: [{ role: 'user', content: `odd:${tag}` }],
          }),
        });
        const text = await response.text();
        expect(response.status, text).toBe(200);
      };
      await Promise.all(oddValues.flatMap((_, index) => routes.map((route) => call(victimToken.apiKey, route.model, route.stream, index))));
      await call(otherToken.apiKey, 'gpt-4o-mini', false, -1);
      await flushRelay(ctx);

      const logs = await expectLedgerExact(ctx.storage, startQuota);
      expect(logs).toHaveLength(oddValues.length * routes.length + 1);
      // 1e300 and 3e9 hit the ceiling; strings that are not integers, negatives and objects are 0.
      expect(logs.some((log) => Number(log.prompt_tokens) === maxUsageTokens)).toBe(true);
      expect(logs.filter((log) => log.user_id === other)).toHaveLength(1);

      // A row the database refuses (NaN), then more requests of another user, then shutdown: the
      // shutdown flush sets the bad row aside and writes the rest.
      relayOf(ctx).usage.record((await relayOf(ctx).access.findUser(victim)) as never, null, 0, 5, {
        user_id: victim,
        created_at: 1,
        type: 2,
        quota: 5,
        prompt_tokens: Number.NaN,
      });
      for (let i = 0; i < 3; i += 1) await call(otherToken.apiKey, 'gpt-4o-mini', i === 1, -1);
      await server.close();
      isStopped = true;
      const storage = openStorage({ kind, dsn: database.dsn, sqlitePath: database.sqlitePath });
      try {
        const after = await expectLedgerExact(storage, startQuota);
        expect(after).toHaveLength(logs.length + 3);
        expect(after.filter((log) => log.user_id === other)).toHaveLength(4);
      } finally {
        await storage.close();
      }
    } finally {
      if (!isStopped) await server.close();
      await database.drop();
      await upstream.close();
    }
  }, 60_000);
});
