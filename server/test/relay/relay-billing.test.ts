import { describe, expect, it } from 'vitest';
import { startMockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, relayOf } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/** The formula of docs/billing.md, recomputed from what the log row says. */
function expectedQuota(log: { prompt_tokens: number; completion_tokens: number }, other: any): number {
  if (other.model_price >= 0) return Math.round(other.model_price * 500_000 * other.group_ratio);
  const cached = other.cache_tokens;
  const weighted = log.prompt_tokens - cached + cached * other.cache_ratio + log.completion_tokens * other.completion_ratio;
  if (weighted <= 0 || other.model_ratio === 0) return 0;
  return Math.max(1, Math.round(other.group_ratio * other.model_ratio * weighted));
}

const total500 = Number(process.env.RELAY_BILLING_COUNT ?? 500);

describe.each(storageKinds())('billing exactness under concurrency on %s', (kind) => {
  it('500 concurrent requests over 2 tokens: every log quota follows the formula and the sums match every counter', async () => {
    const mock = await startMockOpenAi();
    const server = await startTestServer({ kind });
    try {
      const { ctx } = server;
      await setOption(ctx, 'GroupRatio', JSON.stringify({ default: 1, vip: 1.5 }));
      const startQuota = 500_000_000;
      const userId = await createRelayUser(ctx, { quota: startQuota });
      const plain = await createRelayToken(ctx, userId, { name: 'plain', remainQuota: 100_000_000 });
      const vip = await createRelayToken(ctx, userId, { name: 'vip', group: 'vip' });
      const channelA = await createRelayChannel(ctx, {
        key: 'healthy',
        baseURL: mock.url,
        models: ['gpt-4o-mini', 'gpt-4o', 'dall-e-3'],
        groups: ['default', 'vip'],
        weight: 1,
      });
      const channelB = await createRelayChannel(ctx, {
        key: 'no-usage',
        baseURL: mock.url,
        models: ['gpt-4o-mini', 'gpt-4o'],
        groups: ['default', 'vip'],
        weight: 1,
      });

      const call = async (i: number) => {
        const token = i % 2 === 0 ? plain : vip;
        const isImage = i % 50 === 1;
        const isStream = !isImage && i % 3 === 0;
        const model = i % 5 === 0 ? 'gpt-4o' : 'gpt-4o-mini';
        const content = `${i % 7 === 0 ? 'please cache ' : ''}message number ${i} ${'x'.repeat(i % 40)}`;
        const url = isImage ? '/v1/images/generations' : '/v1/chat/completions';
        const body = isImage ? { model: 'dall-e-3', prompt: 'cat' } : { model, stream: isStream, messages: [{ role: 'user', content }] };
        const response = await fetch(server.url + url, {
          method: 'POST',
          headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        expect(response.status, text).toBe(200);
        if (isStream) expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      };
      await Promise.all(Array.from({ length: total500 }, (_, i) => call(i)));
      await flushRelay(ctx);

      const db = ctx.storage.db;
      const logs = await db.selectFrom('logs').selectAll().where('type', '=', 2).execute();
      expect(logs).toHaveLength(total500);
      let total = 0;
      const byToken = new Map<number, number>();
      const byChannel = new Map<number, number>();
      for (const log of logs) {
        const other = JSON.parse(log.other);
        expect(Number(log.quota)).toBe(expectedQuota(log, other));
        expect(other.group_ratio).toBe(log.token_id === vip.id ? 1.5 : 1);
        expect(log.group).toBe(log.token_id === vip.id ? 'vip' : 'default');
        expect(Number(log.quota)).toBeGreaterThan(0);
        total += Number(log.quota);
        byToken.set(log.token_id, (byToken.get(log.token_id) ?? 0) + Number(log.quota));
        byChannel.set(log.channel_id, (byChannel.get(log.channel_id) ?? 0) + Number(log.quota));
      }
      // Both the upstream-usage channel and the counted-usage channel served traffic.
      expect(byChannel.get(channelA)).toBeGreaterThan(0);
      expect(byChannel.get(channelB)).toBeGreaterThan(0);
      expect(logs.some((log) => JSON.parse(log.other).cache_tokens === 4)).toBe(true);

      const user = await db
        .selectFrom('users')
        .select(['quota', 'used_quota', 'request_count'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      expect(Number(user.used_quota)).toBe(total);
      expect(Number(user.quota)).toBe(startQuota - total);
      expect(Number(user.request_count)).toBe(total500);
      const tokens = await db.selectFrom('tokens').select(['id', 'used_quota', 'remain_quota']).where('user_id', '=', userId).execute();
      for (const token of tokens) expect(Number(token.used_quota)).toBe(byToken.get(token.id));
      expect(Number(tokens.find((token) => token.id === plain.id)!.remain_quota)).toBe(100_000_000 - byToken.get(plain.id)!);
      const channels = await db.selectFrom('channels').select(['id', 'used_quota']).execute();
      for (const channel of channels) expect(Number(channel.used_quota)).toBe(byChannel.get(channel.id) ?? 0);
      // Nothing left held or pending in memory.
      for (const cached of relayOf(ctx).access.cachedUsers()) {
        expect(cached.held).toBe(0);
        expect(cached.pendingQuota).toBe(0);
      }
    } finally {
      await server.stop();
      await mock.close();
    }
  }, 120_000);
});
