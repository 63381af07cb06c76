import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../src/db/index.js';
import { expectLedgerExact } from '../helpers/ledger-check.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption, settleBus } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * Relayed calls funded by subscriptions (docs/billing.md, "Funding by subscriptions"), through the
 * official openai client against a local OpenAI upstream, on every database of the matrix. The mock
 * answers "Say ok." with 9 prompt and 6 completion tokens: 15 quota at ratio 1 (gpt-4o-mini).
 */
const callCost = 15;
const now = () => Math.floor(Date.now() / 1000);

describe.each(storageKinds())('subscription funding of relayed calls on %s', (kind) => {
  let server: TestServer;
  let upstream: MockOpenAi;
  const starts = new Map<number, number>();

  beforeAll(async () => {
    upstream = await startMockOpenAi();
    server = await startTestServer({ kind });
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 1, 'gpt-4o': 1 }));
    await setOption(server.ctx, 'CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 1, 'gpt-4o': 1 }));
    // Holds at these sizes stay "enough balance": the wallet path is the usual one.
    await setOption(server.ctx, 'LowBalanceQuota', '0');
    await createRelayChannel(server.ctx, { key: 'ok', baseURL: upstream.url, models: ['gpt-4o-mini', 'gpt-4o'] });
    await createRelayChannel(server.ctx, { key: 'fail-400', baseURL: upstream.url, models: ['broken-model'] });
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 1, 'gpt-4o': 1, 'broken-model': 1 }));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  async function newUser(quota: number, preference?: string): Promise<{ id: number; client: OpenAI; token: number }> {
    const id = await createRelayUser(server.ctx, { quota, setting: preference ? JSON.stringify({ billing_preference: preference }) : '' });
    starts.set(id, quota);
    const token = await createRelayToken(server.ctx, id, { isUnlimited: true });
    return { id, token: token.id, client: new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 }) };
  }

  async function grant(userId: number, allowance: number, extra: Record<string, unknown> = {}): Promise<number> {
    const id = await insertReturningId(server.ctx.storage, 'user_subscriptions', {
      user_id: userId,
      plan_id: 1,
      plan_name: 'Pro',
      source: 'admin',
      status: 'active',
      period_quota: allowance,
      remaining_quota: allowance,
      period_start: now() - 60,
      period_end: now() + 86_400,
      ends_at: now() + 86_400,
      ...extra,
    });
    // As the grant API does: every instance re-reads the user.
    await server.ctx.bus.publish('users', String(userId));
    await settleBus(server.ctx);
    return id;
  }

  const ask = (client: OpenAI, extra: Record<string, unknown> = {}) =>
    client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 20,
      ...extra,
    } as never) as unknown as Promise<OpenAI.ChatCompletion>;
  const remainingOf = async (id: number) =>
    Number(
      (
        await server.ctx.storage.db
          .selectFrom('user_subscriptions')
          .select('remaining_quota')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).remaining_quota,
    );
  const walletOf = async (id: number) =>
    Number((await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);
  const rowsOf = async (userId: number) =>
    (
      await server.ctx.storage.db
        .selectFrom('logs')
        .select(['quota', 'other'])
        .where('user_id', '=', userId)
        .where('type', '=', 2)
        .orderBy('id')
        .execute()
    ).map((row) => ({ quota: Number(row.quota), other: JSON.parse(row.other) as Record<string, unknown> }));
  const cachedUser = (id: number) => [...server.relay.access.cachedUsers()].find((user) => user.id === id);

  it('a user without a subscription keeps no funding state and pays from the wallet, as before', async () => {
    const user = await newUser(1_000_000);
    await ask(user.client);
    expect(cachedUser(user.id)?.funding).toBeNull();
    await flushRelay(server.ctx);
    expect(await walletOf(user.id)).toBe(1_000_000 - callCost);
    const [row] = await rowsOf(user.id);
    expect(row!.other).not.toHaveProperty('billing_source');
  });

  it('subscription_first: the allowance pays, then the wallet; the log row says which paid what', async () => {
    // Signed in, to read the usage log as the console does.
    const { client: web, userId } = await signedInClient(server, { username: `subscriber-${kind}`, quota: 1_000_000 });
    starts.set(userId, 1_000_000);
    const key = await createRelayToken(server.ctx, userId, { isUnlimited: true });
    const user = { id: userId, client: new OpenAI({ apiKey: key.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 }) };
    const sub = await grant(user.id, 20);
    await ask(user.client);
    expect(cachedUser(user.id)?.funding).toEqual({ preference: 'subscription_first', hasSubscription: true });
    await ask(user.client, { stream: true, stream_options: { include_usage: true } }).then(async (stream) => {
      for await (const chunk of stream as unknown as AsyncIterable<unknown>) void chunk;
    });
    await flushRelay(server.ctx);
    const rows = await rowsOf(user.id);
    // The streamed answer counts its pieces: it costs more than 15.
    const streamed = rows[1]!.quota;
    expect(await remainingOf(sub)).toBe(0);
    expect(await walletOf(user.id)).toBe(1_000_000 - (callCost + streamed - 20));
    expect(rows.map((row) => row.other)).toEqual([
      expect.objectContaining({ billing_source: 'subscription', subscription_quota: 15, wallet_quota: 0, subscription_id: sub }),
      expect.objectContaining({ billing_source: 'mixed', subscription_quota: 5, wallet_quota: streamed - 5, subscription_id: sub }),
    ]);
    // The usage log API answers it: the console shows who paid from these fields.
    const listed = await web.get('/api/log/self/?type=2&p=1&page_size=10');
    expect(listed.status, listed.text).toBe(200);
    const others = (listed.body.data.items as Array<{ other: string }>).map((item) => JSON.parse(item.other) as Record<string, unknown>);
    expect(others.map((other) => [other.billing_source, other.subscription_quota, other.wallet_quota, other.subscription_id])).toEqual([
      ['mixed', 5, streamed - 5, sub],
      ['subscription', 15, 0, sub],
    ]);
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it('wallet_first and wallet_only: the wallet pays first, or alone', async () => {
    const first = await newUser(20, 'wallet_first');
    const firstSub = await grant(first.id, 1_000);
    await ask(first.client);
    await flushRelay(server.ctx);
    expect(await walletOf(first.id)).toBe(5);
    expect(await remainingOf(firstSub)).toBe(1_000);
    // 5 left in the wallet: it pays 5, the allowance the other 10.
    await ask(first.client);
    await flushRelay(server.ctx);
    expect(await walletOf(first.id)).toBe(0);
    expect(await remainingOf(firstSub)).toBe(990);

    const only = await newUser(1_000, 'wallet_only');
    const untouched = await grant(only.id, 1_000);
    await ask(only.client);
    expect(cachedUser(only.id)?.funding).toBeNull();
    await flushRelay(server.ctx);
    expect(await remainingOf(untouched)).toBe(1_000);
    expect(await walletOf(only.id)).toBe(1_000 - callCost);
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it("subscription_only: refused with a 403 in the caller's shape once the allowance cannot pay, the wallet never charged", async () => {
    const none = await newUser(1_000_000, 'subscription_only');
    const refused = await ask(none.client).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_subscription_quota');
    expect((refused as Error).message).toContain(
      'No subscription allowance is available, and your billing preference is subscription only',
    );

    const user = await newUser(1_000_000, 'subscription_only');
    const sub = await grant(user.id, 45);
    await ask(user.client);
    await ask(user.client);
    // 15 left: below the call's likely cost (at max_tokens 20 its worst).
    const short = await ask(user.client).catch((error: unknown) => error);
    expect(short).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((short as Error).message).toMatch(
      /Insufficient subscription allowance for this request: it needs about \d+ .*, and 15 \(.* is left/,
    );
    const zh = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${none.client.apiKey}`, 'content-type': 'application/json', 'accept-language': 'zh-CN' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say ok.' }] }),
    });
    expect(zh.status).toBe(403);
    expect(((await zh.json()) as { error: { message: string } }).error.message).toBe('没有可用的订阅额度，而扣费方式为仅使用订阅');
    await flushRelay(server.ctx);
    expect(await remainingOf(sub)).toBe(15);
    expect(await walletOf(user.id)).toBe(1_000_000);
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it('a failed call gives the share back; an expired or lapsed subscription funds nothing', async () => {
    const user = await newUser(1_000_000);
    const sub = await grant(user.id, 1_000);
    const failed = await user.client.chat.completions
      .create({ model: 'broken-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.BadRequestError);
    await flushRelay(server.ctx);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await remainingOf(sub)).toBe(1_000);

    // A period over (the renewal not paid, or the job not run yet): the wallet pays.
    const lapsed = await newUser(1_000_000);
    const lapsedSub = await grant(lapsed.id, 1_000, { period_start: now() - 7_200, period_end: now() - 60, ends_at: 0 });
    await ask(lapsed.client);
    await flushRelay(server.ctx);
    expect(await remainingOf(lapsedSub)).toBe(1_000);
    expect(await walletOf(lapsed.id)).toBe(1_000_000 - callCost);

    // Ended (as revoke and the period job do, then publish): the relay's user is re-read and stops asking.
    await server.ctx.storage.db.updateTable('user_subscriptions').set({ status: 'expired' }).where('id', '=', sub).execute();
    await server.ctx.bus.publish('users', String(user.id));
    await settleBus(server.ctx);
    expect(cachedUser(user.id)?.funding).toBeNull();
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it('bills each of 300 concurrent calls once, split exactly between one allowance and the wallet', async () => {
    const user = await newUser(1_000_000);
    // Enough for about half of the calls.
    const sub = await grant(user.id, 150 * callCost + 7);
    const limitedUser = await newUser(1_000_000, 'wallet_first');
    const limitedSub = await grant(limitedUser.id, 200 * callCost);
    await setOption(server.ctx, 'LowBalanceQuota', '0');
    await server.ctx.storage.db
      .updateTable('users')
      .set({ quota: 50 * callCost })
      .where('id', '=', limitedUser.id)
      .execute();
    starts.set(limitedUser.id, 50 * callCost);
    await server.ctx.bus.publish('users', String(limitedUser.id));
    await settleBus(server.ctx);
    const calls = await Promise.allSettled([
      ...Array.from({ length: 300 }, (_, i) =>
        ask(user.client, i % 3 === 0 ? { stream: true, stream_options: { include_usage: true } } : {}).then(async (answer) => {
          if (Symbol.asyncIterator in (answer as object)) for await (const chunk of answer as unknown as AsyncIterable<unknown>) void chunk;
        }),
      ),
      // 100 calls against funds for 250: room for every call's worst-cost hold (about 2 calls' cost) at once.
      ...Array.from({ length: 100 }, () => ask(limitedUser.client)),
    ]);
    expect(calls.filter((call) => call.status === 'rejected').map((call) => String((call as PromiseRejectedResult).reason))).toEqual([]);
    await flushRelay(server.ctx);
    // Each call is billed once, to the allowance or the wallet: the ledger (counters = rows; every
    // allowance used = what the rows say it paid) is exact. How much each source paid depends on how
    // the calls overlapped (a call's share is held at its worst cost); the allowance pays most.
    await expectLedgerExact(server.ctx.storage, starts);
    const rows = await rowsOf(user.id);
    expect(rows).toHaveLength(300);
    const fromAllowance = rows.reduce((total, row) => total + Number(row.other.subscription_quota), 0);
    expect(fromAllowance).toBe(150 * callCost + 7 - (await remainingOf(sub)));
    expect(fromAllowance).toBeGreaterThan(100 * callCost);
    const billed = rows.reduce((total, row) => total + row.quota, 0);
    expect(await walletOf(user.id)).toBe(1_000_000 - (billed - fromAllowance));
    // wallet_first: the wallet never below 0, the rest from the allowance.
    const limitedRows = await rowsOf(limitedUser.id);
    const limitedFromAllowance = limitedRows.reduce((total, row) => total + Number(row.other.subscription_quota), 0);
    expect(await walletOf(limitedUser.id)).toBe(50 * callCost - (100 * callCost - limitedFromAllowance));
    expect(await walletOf(limitedUser.id)).toBeGreaterThanOrEqual(0);
    expect(await remainingOf(limitedSub)).toBe(200 * callCost - limitedFromAllowance);
    for (const cached of server.relay.access.cachedUsers()) expect(cached.held).toBe(0);
  }, 120_000);
});
