import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { expectLedgerExact } from '../helpers/ledger-check.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, relayOf } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds } from '../helpers/test-storage.js';

/**
 * A local OpenAI upstream that bills like the real one: prompt tokens counted with o200k (3 per
 * message + 3, as OpenAI frames chat), and an answer that runs to its limit: max_tokens when the
 * request sets it, else 12,000 tokens (a long answer inside gpt-4o-mini's 16,384 default output).
 */
async function startBillingUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      let prompt = 3;
      for (const message of body.messages) prompt += 3 + countTokens(message.role) + countTokens(message.content);
      const completion = typeof body.max_tokens === 'number' ? body.max_tokens : 12_000;
      const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
      const head = { id: 'c1', created: 1, model: body.model };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '好的' }, finish_reason: null }] })}\n\n`,
        );
        res.write(
          `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\n`,
        );
        res.write(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      const answer = JSON.stringify({
        ...head,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: '好的' }, finish_reason: 'length' }],
        usage,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const chinese = '请详细解释一下量子计算的基本原理，包括量子比特、叠加态和纠缠，并举例说明它们在密码学和材料科学中的应用。';
const english = 'Explain, step by step, how a write-behind ledger keeps balances exact when requests settle concurrently. ';

/**
 * The overdraft bound of docs/billing.md on one instance: 400 requests at once from a user with
 * quota 1,000 (unlimited token) and from a rich user's token limited to 1,000; Chinese and English
 * prompts, with and without max_tokens, streamed and not. Holds cover every answer the upstream
 * can give, so neither balance goes below 0 (the documented single-instance worst case when the
 * upstream reports no more than the request allows), and the ledger is exact.
 */
describe.each(storageKinds())('overdraft at concurrency 400 on %s', (kind) => {
  it('keeps the user and the token at or above 0 and the ledger exact', async () => {
    const upstream = await startBillingUpstream();
    const server = await startTestServer({ kind });
    try {
      const { ctx } = server;
      await setOption(ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.005 }));
      await setOption(ctx, 'CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 1 }));
      // Refused calls write error rows (type 5, quota 0) among the consume rows: the ledger stays exact.
      await setOption(ctx, 'ErrorLogEnabled', 'true');
      const poor = await createRelayUser(ctx, { quota: 1_000 });
      const rich = await createRelayUser(ctx, { quota: 1_000_000_000 });
      const poorToken = await createRelayToken(ctx, poor, { isUnlimited: true });
      const limitedToken = await createRelayToken(ctx, rich, { remainQuota: 1_000 });
      await createRelayChannel(ctx, { key: 'k', baseURL: upstream.url, models: ['gpt-4o-mini'] });

      const call = async (i: number) => {
        const token = i % 2 === 0 ? poorToken : limitedToken;
        const content = (i % 4 < 2 ? chinese : english).repeat(1 + (i % 5));
        const body = {
          model: 'gpt-4o-mini',
          stream: i % 3 === 1,
          ...(i % 3 === 0 ? {} : { max_tokens: 500 + (i % 7) * 300 }),
          messages: [{ role: 'user', content }],
        };
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (response.status === 200) return 'served';
        expect([401, 403], text).toContain(response.status);
        expect(text).toMatch(/insufficient_user_quota|insufficient_token_quota|quota is used up|额度/);
        return 'refused';
      };
      const outcomes = await Promise.all(Array.from({ length: 400 }, (_, i) => call(i)));
      await flushRelay(ctx);

      const served = outcomes.filter((outcome) => outcome === 'served').length;
      expect(served).toBeGreaterThan(0);
      expect(served).toBeLessThan(400);
      await expectLedgerExact(
        ctx.storage,
        new Map([
          [poor, 1_000],
          [rich, 1_000_000_000],
        ]),
      );
      const db = ctx.storage.db;
      const errorRows = await db.selectFrom('logs').select('quota').where('type', '=', 5).execute();
      expect(errorRows.length).toBeGreaterThan(0);
      expect(errorRows.every((row) => Number(row.quota) === 0)).toBe(true);
      const poorRow = await db.selectFrom('users').select('quota').where('id', '=', poor).executeTakeFirstOrThrow();
      const tokenRow = await db.selectFrom('tokens').select('remain_quota').where('id', '=', limitedToken.id).executeTakeFirstOrThrow();
      expect(Number(poorRow.quota)).toBeGreaterThanOrEqual(0);
      expect(Number(tokenRow.remain_quota)).toBeGreaterThanOrEqual(0);
      // Both limits were reached: they, not the test, stopped the spending.
      expect(Number(poorRow.quota)).toBeLessThan(1_000);
      expect(Number(tokenRow.remain_quota)).toBeLessThan(1_000);
      for (const user of relayOf(ctx).access.cachedUsers()) {
        expect(user.held).toBe(0);
        expect(user.pendingQuota).toBe(0);
      }
    } finally {
      await server.stop();
      await upstream.close();
    }
  }, 60_000);

  it('bounds two instances sharing the database by (instances − 1) × the balance', async () => {
    const upstream = await startBillingUpstream();
    const database = await createTestDatabase(kind);
    const first = await startTestServer({ kind, database });
    const second = await startTestServer({ kind, database });
    try {
      const { ctx } = first;
      await setOption(ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.005 }));
      await setOption(ctx, 'CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 1 }));
      await setOption(second.ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.005 }));
      await setOption(second.ctx, 'CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 1 }));
      const user = await createRelayUser(ctx, { quota: 1_000 });
      const token = await createRelayToken(ctx, user, { isUnlimited: true });
      await createRelayChannel(ctx, { key: 'k', baseURL: upstream.url, models: ['gpt-4o-mini'] });
      await second.relay.channels.rebuild();

      const call = async (i: number) => {
        const url = (i % 2 === 0 ? first : second).url;
        const body = {
          model: 'gpt-4o-mini',
          ...(i % 3 === 0 ? {} : { max_tokens: 2_000 }),
          messages: [{ role: 'user', content: chinese }],
        };
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await response.text();
        return response.status;
      };
      const statuses = await Promise.all(Array.from({ length: 400 }, (_, i) => call(i)));
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
      await flushRelay(first.ctx);
      await flushRelay(second.ctx);
      await expectLedgerExact(ctx.storage, new Map([[user, 1_000]]));
      const row = await ctx.storage.db.selectFrom('users').select('quota').where('id', '=', user).executeTakeFirstOrThrow();
      expect(Number(row.quota)).toBeGreaterThanOrEqual(-(2 - 1) * 1_000);
    } finally {
      await second.stop();
      await first.stop();
      await database.drop();
      await upstream.close();
    }
  }, 60_000);
});
