import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../src/db/index.js';
import { expectLedgerExact } from '../helpers/ledger-check.js';
import { startMjUpstream, type MjUpstream } from '../helpers/mj-upstream.js';
import { eventTypes, openClient, startMockRealtime, waitFor, type MockRealtime } from '../helpers/realtime-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption, settleBus } from '../helpers/relay-fixtures.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * Task submits (Suno, Midjourney) and Realtime sessions funded by subscriptions (docs/billing.md,
 * "Funding by subscriptions"), against the local Suno, Midjourney-Proxy and Realtime upstreams the
 * task and Realtime tests use, on every database of the matrix. A task costs 0.1 × 500 000 = 50 000;
 * a Realtime session of the mock's two responses costs 10 538, then 17 758 in all (realtime.test.ts).
 */
const taskPrice = 50_000;
const firstResponse = 10_538;
const twoResponses = 17_758;
const now = () => Math.floor(Date.now() / 1000);

describe.each(storageKinds())('subscription funding of tasks and Realtime sessions on %s', (kind) => {
  let server: TestServer;
  let suno: SunoUpstream;
  let mj: MjUpstream;
  let realtime: MockRealtime;
  const starts = new Map<number, number>();

  beforeAll(async () => {
    suno = await startSunoUpstream('suno-key');
    mj = await startMjUpstream('mj-key');
    realtime = await startMockRealtime();
    // Polling is driven by the tests (pollOnce), not by the interval.
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'DrawingEnabled', 'true');
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1, mj_imagine: 0.1 }));
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: suno.url, models: ['suno_music'] });
    await createRelayChannel(server.ctx, { type: 5, key: 'mj-key', baseURL: mj.url, models: ['mj_imagine'] });
    await createRelayChannel(server.ctx, { key: 'realtime-key', baseURL: realtime.url, models: ['gpt-4o-realtime-preview'] });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await suno?.close();
    await mj?.close();
    await realtime?.close();
  });

  async function newUser(quota: number, preference?: string): Promise<{ id: number; key: string }> {
    const id = await createRelayUser(server.ctx, { quota, setting: preference ? JSON.stringify({ billing_preference: preference }) : '' });
    starts.set(id, quota);
    const token = await createRelayToken(server.ctx, id, { isUnlimited: true });
    return { id, key: token.key };
  }
  async function grant(userId: number, allowance: number): Promise<number> {
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
    });
    await server.ctx.bus.publish('users', String(userId));
    await settleBus(server.ctx);
    return id;
  }
  const call = (key: string, path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json', 'accept-language': 'en' },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const db = () => server.ctx.storage.db;
  const remainingOf = async (id: number) =>
    Number(
      (await db().selectFrom('user_subscriptions').select('remaining_quota').where('id', '=', id).executeTakeFirstOrThrow())
        .remaining_quota,
    );
  const walletOf = async (id: number) =>
    Number((await db().selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);
  const rowsOf = async (userId: number, type = 2) =>
    (
      await db()
        .selectFrom('logs')
        .select(['quota', 'other'])
        .where('user_id', '=', userId)
        .where('type', '=', type)
        .orderBy('id')
        .execute()
    ).map((row) => ({ quota: Number(row.quota), other: JSON.parse(row.other) as Record<string, unknown> }));
  /** The user's consume rows once `count` are written (a funded bill is recorded after its split). */
  const settledRows = async (userId: number, count: number) => {
    await expect
      .poll(
        async () => {
          await flushRelay(server.ctx);
          return (await rowsOf(userId)).length;
        },
        { timeout: 10_000 },
      )
      .toBeGreaterThanOrEqual(count);
    return rowsOf(userId);
  };
  const heldOf = (id: number) => [...server.relay.access.cachedUsers()].find((user) => user.id === id)?.held;

  /**
   * Opens a session, asks for `responses` responses and answers the frames and the close it got:
   * closed by the client (`isEndedByClient`), else by the gateway.
   */
  async function session(key: string, responses: number, isEndedByClient = true) {
    const client = openClient(`${server.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`, {
      headers: { Authorization: `Bearer sk-${key}` },
    });
    await client.opened;
    for (let i = 1; i <= responses; i += 1) {
      client.socket.send(JSON.stringify({ type: 'response.create' }));
      await waitFor(() => eventTypes(client.frames).filter((type) => type === 'response.done').length === i, `response.done ${i}`);
    }
    if (isEndedByClient) client.socket.close(1000, 'bye');
    return { frames: client.frames, closed: await client.closed };
  }

  it('Suno: the allowance pays a submit first, the wallet the rest; a failed task gives each part back to its source', async () => {
    const user = await newUser(1_000_000);
    const sub = await grant(user.id, 70_000);
    suno.nextScript([{ status: 'SUCCESS' }]);
    const paid = await call(user.key, '/suno/submit/music', { prompt: 'paid by the plan' });
    expect(paid.body.code).toBe('success');
    suno.nextScript([{ status: 'IN_PROGRESS' }, { status: 'FAILURE', fail_reason: 'content policy' }]);
    const failed = await call(user.key, '/suno/submit/music', { prompt: 'doomed' });
    expect(failed.body.code).toBe('success');
    // Taken at once, in the database: 50 000 + 20 000 from the allowance, 30 000 from the wallet.
    expect(await remainingOf(sub)).toBe(0);
    expect(await walletOf(user.id)).toBe(1_000_000 - 30_000);
    expect((await rowsOf(user.id)).map((row) => row.other)).toEqual([
      expect.objectContaining({
        task_id: paid.body.data,
        billing_source: 'subscription',
        subscription_quota: taskPrice,
        wallet_quota: 0,
        subscription_id: sub,
      }),
      expect.objectContaining({
        task_id: failed.body.data,
        billing_source: 'mixed',
        subscription_quota: 20_000,
        wallet_quota: 30_000,
        subscription_id: sub,
      }),
    ]);
    const task = await db()
      .selectFrom('tasks')
      .select('subscription_parts')
      .where('task_id', '=', failed.body.data)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(task.subscription_parts)).toEqual([{ subscription_id: sub, period_end: expect.any(Number), quota: 20_000 }]);

    for (let round = 0; round < 3; round += 1) await server.relay.tasks.pollOnce();
    expect(await remainingOf(sub)).toBe(20_000);
    expect(await walletOf(user.id)).toBe(1_000_000);
    expect((await rowsOf(user.id, 6)).map((row) => [row.quota, row.other])).toEqual([
      [
        taskPrice,
        {
          task_id: failed.body.data,
          refund: taskPrice,
          billing_source: 'mixed',
          subscription_quota: 20_000,
          wallet_quota: 30_000,
          subscription_id: sub,
        },
      ],
    ]);
    expect(heldOf(user.id)).toBe(0);
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it('Midjourney, subscription_only: refused without allowance, paid by it otherwise, refunded to it; the wallet never touched', async () => {
    const none = await newUser(1_000_000, 'subscription_only');
    const refused = await call(none.key, '/mj/submit/imagine', { prompt: 'a cat' });
    expect(refused.status).toBe(403);
    expect(refused.body.description).toBe('No subscription allowance is available, and your billing preference is subscription only');

    const user = await newUser(1_000_000, 'subscription_only');
    const sub = await grant(user.id, 60_000);
    mj.nextScript([
      { status: 'IN_PROGRESS', progress: '10%' },
      { status: 'FAILURE', failReason: 'Banned prompt detected', progress: '10%' },
    ]);
    const drawn = await call(user.key, '/mj/submit/imagine', { prompt: 'a cat' });
    expect(drawn.body.code).toBe(1);
    expect(await remainingOf(sub)).toBe(10_000);
    const short = await call(user.key, '/mj/submit/imagine', { prompt: 'another cat' });
    expect(short.status).toBe(403);
    expect(short.body.description).toMatch(
      /^Insufficient subscription allowance for this request: it needs about 50000 .*, and 10000 .* is left$/,
    );
    expect((await rowsOf(user.id)).map((row) => row.other)).toEqual([
      expect.objectContaining({ billing_source: 'subscription', subscription_quota: taskPrice, wallet_quota: 0 }),
    ]);

    for (let round = 0; round < 2; round += 1) await server.relay.tasks.pollOnce();
    await expect.poll(() => remainingOf(sub)).toBe(60_000);
    expect((await rowsOf(user.id, 6)).map((row) => row.other)).toEqual([
      expect.objectContaining({ billing_source: 'subscription', subscription_quota: taskPrice, wallet_quota: 0 }),
    ]);
    expect(await walletOf(user.id)).toBe(1_000_000);
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it('Realtime: the running cost is funded from the allowance first, the wallet the rest, split exactly at the end', async () => {
    // A wallet at 0: the allowance alone lets the session open and run until it runs out.
    const user = await newUser(0);
    const sub = await grant(user.id, 12_000);
    const { frames, closed } = await session(user.key, 2, false);
    expect(eventTypes(frames).filter((type) => type === 'response.done')).toHaveLength(2);
    // The second response overran the allowance and the wallet: the session ended with the wallet's error.
    expect(closed.code).toBe(1008);
    const [row] = await settledRows(user.id, 1);
    expect(row).toEqual({
      quota: twoResponses,
      other: expect.objectContaining({
        ws: true,
        billing_source: 'mixed',
        subscription_quota: 12_000,
        wallet_quota: twoResponses - 12_000,
        subscription_id: sub,
      }),
    });
    expect(await remainingOf(sub)).toBe(0);
    expect(await walletOf(user.id)).toBe(-(twoResponses - 12_000));

    const rich = await newUser(1_000_000);
    const richSub = await grant(rich.id, 1_000_000);
    expect((await session(rich.key, 2)).closed.code).toBe(1000);
    expect((await settledRows(rich.id, 1)).map((r) => r.other)).toEqual([
      expect.objectContaining({ billing_source: 'subscription', subscription_quota: twoResponses, wallet_quota: 0 }),
    ]);
    expect(await remainingOf(richSub)).toBe(1_000_000 - twoResponses);
    expect(await walletOf(rich.id)).toBe(1_000_000);
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it('Realtime, subscription_only: refused at the upgrade without a subscription; ended once the allowance is used up', async () => {
    const none = await newUser(1_000_000, 'subscription_only');
    const client = openClient(`${server.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`, {
      headers: { Authorization: `Bearer sk-${none.key}`, 'Accept-Language': 'en' },
    });
    const rejected = await client.rejected;
    expect(rejected.status).toBe(403);
    expect(JSON.parse(rejected.body).error).toMatchObject({
      code: 'insufficient_subscription_quota',
      message: 'No subscription allowance is available, and your billing preference is subscription only',
    });

    const user = await newUser(1_000_000, 'subscription_only');
    const sub = await grant(user.id, firstResponse + 1_000);
    const { frames, closed } = await session(user.key, 2, false);
    expect(closed.code).toBe(1008);
    const errors = frames
      .filter((frame) => !frame.isBinary)
      .map((frame) => JSON.parse(frame.text) as { type: string; error?: { code: string } })
      .filter((event) => event.type === 'error');
    expect(errors.map((event) => event.error?.code)).toEqual(['insufficient_subscription_quota']);
    // What no allowance could pay of the last response is billed to the wallet, as a chat call's overrun.
    expect((await settledRows(user.id, 1)).map((r) => r.other)).toEqual([
      expect.objectContaining({
        billing_source: 'mixed',
        subscription_quota: firstResponse + 1_000,
        wallet_quota: twoResponses - firstResponse - 1_000,
      }),
    ]);
    expect(await remainingOf(sub)).toBe(0);
    await expectLedgerExact(server.ctx.storage, starts);
  });

  it('bills concurrent task submits, refunds and Realtime sessions once each, split exactly between the allowance and the wallet', async () => {
    const user = await newUser(2_000_000);
    // Enough for about half of what is spent below.
    const sub = await grant(user.id, 10 * taskPrice + 3 * twoResponses + 7);
    const walletFirst = await newUser(3 * taskPrice, 'wallet_first');
    const walletFirstSub = await grant(walletFirst.id, 1_000_000);
    suno.nextScript([{ status: 'SUCCESS' }]);
    const succeeding = Array.from({ length: 12 }, (_, i) => call(user.key, '/suno/submit/music', { prompt: `song ${i}` }));
    const others = Array.from({ length: 6 }, (_, i) => call(walletFirst.key, '/suno/submit/music', { prompt: `wallet first ${i}` }));
    const sessions = Array.from({ length: 6 }, () => session(user.key, 2));
    const done = await Promise.all([...succeeding, ...others]);
    expect(done.map((answer) => answer.body.code)).toEqual(Array(18).fill('success'));
    suno.nextScript([{ status: 'FAILURE', fail_reason: 'nope' }]);
    const failing = await Promise.all(Array.from({ length: 8 }, (_, i) => call(user.key, '/suno/submit/music', { prompt: `doomed ${i}` })));
    expect(failing.map((answer) => answer.body.code)).toEqual(Array(8).fill('success'));
    expect((await Promise.all(sessions)).map((ended) => ended.closed.code)).toEqual(Array(6).fill(1000));
    await Promise.all([server.relay.tasks.pollOnce(), server.relay.tasks.pollOnce()]);
    await settledRows(user.id, 26);
    await waitFor(() => heldOf(user.id) === 0, 'holds released');

    // Each call once, to the allowance or the wallet; refunds back to where they came from.
    await expectLedgerExact(server.ctx.storage, starts);
    const spent = 12 * taskPrice + 6 * twoResponses;
    const consumed = await rowsOf(user.id);
    const refunds = await rowsOf(user.id, 6);
    expect(consumed).toHaveLength(26);
    expect(refunds).toHaveLength(8);
    const fromAllowance = (rows: typeof consumed) => rows.reduce((total, row) => total + Number(row.other.subscription_quota ?? 0), 0);
    expect(fromAllowance(consumed) - fromAllowance(refunds)).toBe(10 * taskPrice + 3 * twoResponses + 7 - (await remainingOf(sub)));
    expect(await walletOf(user.id)).toBe(2_000_000 - (spent - (fromAllowance(consumed) - fromAllowance(refunds))));
    // wallet_first: the wallet as far as it reaches (never below 0), the allowance the rest.
    const wallet = await walletOf(walletFirst.id);
    expect(wallet).toBeGreaterThanOrEqual(0);
    expect(3 * taskPrice - wallet + (1_000_000 - (await remainingOf(walletFirstSub)))).toBe(6 * taskPrice);
    for (const cached of server.relay.access.cachedUsers()) expect(cached.held).toBe(0);
  }, 120_000);
});
