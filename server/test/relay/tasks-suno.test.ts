import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowSeconds } from '../../src/db/index.js';
import { failAndRefund } from '../../src/relay/ledger/task-ledger.js';
import { taskPlatforms } from '../../src/relay/tasks/platforms.js';
import { TaskPoller } from '../../src/relay/tasks/poller.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const musicPrice = 0.1;
const quotaPerUnit = 500_000;
const musicQuota = musicPrice * quotaPerUnit;

/** Suno through ModelGate: submit (billed durably), fetch (own tasks only), polled to the end, failures refunded once. */
describe.each(storageKinds())('Suno task relay on %s', (kind) => {
  let server: TestServer;
  /** A second instance on the same database (PostgreSQL and MySQL: several instances need a shared server database). */
  let second: TestServer | null = null;
  let suno: SunoUpstream;
  let channelId: number;
  let user: { id: number; tokenId: number; key: string };
  let other: { id: number; tokenId: number; key: string };

  const call = (key: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer sk-${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

  const ledger = async (userId: number, tokenId: number) => {
    const db = server.ctx.storage.db;
    const userRow = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
    const tokenRow = await db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    const channel = await db.selectFrom('channels').select('used_quota').where('id', '=', channelId).executeTakeFirstOrThrow();
    const logs = await db.selectFrom('logs').select(['type', 'quota']).where('user_id', '=', userId).where('type', 'in', [2, 6]).execute();
    const consumed = logs.filter((log) => log.type === 2).reduce((sum, log) => sum + Number(log.quota), 0);
    const refunded = logs.filter((log) => log.type === 6).reduce((sum, log) => sum + Number(log.quota), 0);
    return {
      quota: Number(userRow.quota),
      used: Number(userRow.used_quota),
      tokenRemain: Number(tokenRow.remain_quota),
      tokenUsed: Number(tokenRow.used_quota),
      channelUsed: Number(channel.used_quota),
      consumed,
      refunded,
    };
  };

  const newCaller = async (quota: number) => {
    const id = await createRelayUser(server.ctx, { quota });
    const token = await createRelayToken(server.ctx, id, { remainQuota: quota });
    return { id, tokenId: token.id, key: token.key };
  };

  /**
   * Makes the database refuse to move one task to `status` (a trigger: a real refusal, as a full disk or
   * a constraint would give); resolves to what takes the trigger away.
   */
  const refuseUpdate = async (taskId: string, status: string): Promise<() => Promise<void>> => {
    const db = server.ctx.storage.db;
    const id = sql.lit(taskId);
    const to = sql.lit(status);
    const statements = {
      sqlite: [
        sql`CREATE TRIGGER refuse_task BEFORE UPDATE ON tasks WHEN NEW.task_id = ${id} AND NEW.status = ${to} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      ],
      postgres: [
        sql`CREATE FUNCTION refuse_task() RETURNS trigger AS $$ BEGIN IF NEW.task_id = ${id} AND NEW.status = ${to} THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
        sql`CREATE TRIGGER refuse_task BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_task()`,
      ],
      mysql: [
        sql`CREATE TRIGGER refuse_task BEFORE UPDATE ON tasks FOR EACH ROW BEGIN IF NEW.task_id = ${id} AND NEW.status = ${to} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END`,
      ],
    }[kind];
    for (const statement of statements) await statement.execute(db);
    return async () => {
      await sql`DROP TRIGGER refuse_task${kind === 'postgres' ? sql` ON tasks` : sql``}`.execute(db);
      if (kind === 'postgres') await sql`DROP FUNCTION refuse_task()`.execute(db);
    };
  };

  beforeAll(async () => {
    suno = await startSunoUpstream('suno-key');
    // Polling is driven by the tests (pollOnce), not by the interval.
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    if (kind !== 'sqlite') second = await startTestServer({ database: server.database, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: musicPrice, suno_lyrics: 0.02 }));
    channelId = await createRelayChannel(server.ctx, {
      type: 36,
      key: 'suno-key',
      baseURL: suno.url,
      models: ['suno_music', 'suno_lyrics'],
    });
    user = await newCaller(1_000_000);
    other = await newCaller(1_000_000);
  });
  afterAll(async () => {
    await second?.stop();
    await server?.stop();
    await suno?.close();
  });

  it('submits music: the gateway task id, the upstream request, and the price taken in the database at once', async () => {
    const before = await ledger(user.id, user.tokenId);
    suno.nextScript([{ status: 'NOT_START' }, { status: 'IN_PROGRESS' }, { status: 'SUCCESS' }]);
    const submitted = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'a song about gateways', tags: 'pop' });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ code: 'success', data: expect.stringMatching(/^task_[0-9a-f]{32}$/) });
    expect(suno.submits.at(-1)).toMatchObject({
      path: '/suno/submit/MUSIC',
      authorization: 'Bearer suno-key',
      body: { prompt: 'a song about gateways', tags: 'pop', mv: 'chirp-v3-0' },
    });
    const after = await ledger(user.id, user.tokenId);
    expect(after.quota).toBe(before.quota - musicQuota);
    expect(after.tokenRemain).toBe(before.tokenRemain - musicQuota);
    expect(after.channelUsed).toBe(before.channelUsed + musicQuota);
    expect(after.consumed).toBe(before.consumed + musicQuota);
    const row = await server.ctx.storage.db
      .selectFrom('tasks')
      .selectAll()
      .where('task_id', '=', submitted.body.data)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'SUBMITTED',
      platform: 'suno',
      action: 'MUSIC',
      user_id: user.id,
      token_id: user.tokenId,
      channel_id: channelId,
    });
    expect(row.upstream_id).toMatch(/^up-/);
    expect(submitted.body.data).not.toContain(row.upstream_id);

    // Polled to SUCCESS: the client fetches it (and only its owner can).
    const poller = server.relay.tasks;
    for (let round = 0; round < 3; round += 1) await poller.pollOnce();
    const fetched = await call(user.key, 'GET', `/suno/fetch/${submitted.body.data}`);
    expect(fetched.body).toMatchObject({
      code: 'success',
      data: { task_id: submitted.body.data, status: 'SUCCESS', progress: '100%', data: [{ audio_url: expect.stringContaining('.mp3') }] },
    });
    expect(fetched.body.data.finish_time).toBeGreaterThan(0);
    const listed = await call(user.key, 'POST', '/suno/fetch', { ids: [submitted.body.data, 'task_unknown'] });
    expect(listed.body.data.map((task: any) => task.task_id)).toEqual([submitted.body.data]);
    expect(await call(other.key, 'GET', `/suno/fetch/${submitted.body.data}`)).toMatchObject({
      status: 404,
      body: { code: 'error', data: null },
    });
    expect((await call(other.key, 'POST', '/suno/fetch', { ids: [submitted.body.data] })).body.data).toEqual([]);
    // A finished task is billed once and not polled again.
    const polls = suno.fetched.get(row.upstream_id);
    await poller.pollOnce();
    expect(suno.fetched.get(row.upstream_id)).toBe(polls);
    expect((await ledger(user.id, user.tokenId)).consumed).toBe(after.consumed);
  });

  it('refunds a failed task exactly once, with a refund log row', async () => {
    const before = await ledger(user.id, user.tokenId);
    suno.nextScript([{ status: 'IN_PROGRESS' }, { status: 'FAILURE', fail_reason: 'content policy' }]);
    const submitted = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'x' });
    await server.relay.tasks.pollOnce();
    await server.relay.tasks.pollOnce();
    const row = await server.ctx.storage.db
      .selectFrom('tasks')
      .selectAll()
      .where('task_id', '=', submitted.body.data)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'FAILURE', fail_reason: 'content policy', progress: '100%' });
    expect(await failAndRefund(server.ctx, server.relay, 'tasks', submitted.body.data, 'again')).toBe(false);
    const after = await ledger(user.id, user.tokenId);
    expect(after.quota).toBe(before.quota);
    expect(after.tokenRemain).toBe(before.tokenRemain);
    expect(after.refunded).toBe(before.refunded + musicQuota);
    expect(after.used).toBe(after.consumed - after.refunded);
    // The refund is a type-6 row for the token that paid, found by the console's type filter.
    const refundRow = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', user.id)
      .where('type', '=', 6)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const tokenName = (
      await server.ctx.storage.db.selectFrom('tokens').select('name').where('id', '=', user.tokenId).executeTakeFirstOrThrow()
    ).name;
    expect(refundRow).toMatchObject({
      quota: musicQuota,
      token_id: user.tokenId,
      token_name: tokenName,
      channel_id: channelId,
      content: `suno 任务 ${submitted.body.data}（MUSIC）失败，退还额度：content policy`,
    });
    expect(JSON.parse(refundRow.other)).toEqual({ task_id: submitted.body.data, refund: musicQuota });
  });

  it("stores an outsized or odd answer whole, and one task's answer never holds up the others", async () => {
    const before = await ledger(user.id, user.tokenId);
    // 120 KB of clips (more than MySQL's TEXT holds) and times no database column can hold.
    const clips = [{ id: 'clip-long', lyrics: 'la '.repeat(40_000), status: 'complete' }];
    suno.nextScript([{ status: 'SUCCESS', fields: { data: clips, start_time: 1e300, finish_time: -5 } }]);
    const odd = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'long' });
    suno.nextScript([{ status: 'SUCCESS' }]);
    const plain = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'short' });
    await server.relay.tasks.pollOnce();
    const rows = await server.ctx.storage.db
      .selectFrom('tasks')
      .select(['task_id', 'status', 'data', 'start_time', 'finish_time'])
      .where('task_id', 'in', [odd.body.data, plain.body.data])
      .execute();
    const byId = new Map(rows.map((row) => [row.task_id, row]));
    expect(byId.get(plain.body.data)).toMatchObject({ status: 'SUCCESS' });
    expect(byId.get(odd.body.data)).toMatchObject({ status: 'SUCCESS', start_time: 0 });
    expect(JSON.parse(byId.get(odd.body.data)!.data)).toEqual(clips);
    expect(Number(byId.get(odd.body.data)!.finish_time)).toBeGreaterThan(0);
    const fetched = await call(user.key, 'GET', `/suno/fetch/${odd.body.data}`);
    expect(fetched.body.data.data).toEqual(clips);
    // Both delivered, both paid, nothing refunded.
    const after = await ledger(user.id, user.tokenId);
    expect(after.refunded).toBe(before.refunded);
    expect(after.quota).toBe(before.quota - 2 * musicQuota);
  });

  it('a task whose write the database refuses is retried at the next poll, and the others are stored', async () => {
    suno.nextScript([{ status: 'SUCCESS' }]);
    const refused = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'refused' });
    suno.nextScript([{ status: 'SUCCESS' }]);
    const stored = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'stored' });
    const db = server.ctx.storage.db;
    const drop = await refuseUpdate(refused.body.data, 'SUCCESS');
    const statuses = async () =>
      new Map(
        (
          await db.selectFrom('tasks').select(['task_id', 'status']).where('task_id', 'in', [refused.body.data, stored.body.data]).execute()
        ).map((row) => [row.task_id, row.status]),
      );
    try {
      await server.relay.tasks.pollOnce();
      expect(await statuses()).toEqual(
        new Map([
          [refused.body.data, 'SUBMITTED'],
          [stored.body.data, 'SUCCESS'],
        ]),
      );
    } finally {
      await drop();
    }
    // The lease was given back: the next poll stores it.
    await server.relay.tasks.pollOnce();
    expect((await statuses()).get(refused.body.data)).toBe('SUCCESS');
  });

  it('a timed-out task the database refuses to end does not keep the others from their refund, or the poll from running', async () => {
    const before = await ledger(user.id, user.tokenId);
    suno.nextScript([{ status: 'IN_PROGRESS' }]);
    const first = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'stuck one' });
    suno.nextScript([{ status: 'IN_PROGRESS' }]);
    const second = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'stuck two' });
    const db = server.ctx.storage.db;
    const statuses = async () =>
      new Map(
        (
          await db.selectFrom('tasks').select(['task_id', 'status']).where('task_id', 'in', [first.body.data, second.body.data]).execute()
        ).map((row) => [row.task_id, row.status]),
      );
    const late = nowSeconds() + server.ctx.config.taskTimeoutSeconds + 60;
    const drop = await refuseUpdate(first.body.data, 'FAILURE');
    try {
      await server.relay.tasks.pollOnce(late);
      expect((await statuses()).get(second.body.data)).toBe('FAILURE');
      expect((await statuses()).get(first.body.data)).not.toBe('FAILURE');
      expect((await ledger(user.id, user.tokenId)).refunded).toBe(before.refunded + musicQuota);
    } finally {
      await drop();
    }
    await server.relay.tasks.pollOnce(late + 1);
    expect((await statuses()).get(first.body.data)).toBe('FAILURE');
    const after = await ledger(user.id, user.tokenId);
    expect(after.refunded).toBe(before.refunded + 2 * musicQuota);
    expect(after.quota).toBe(before.quota);
  });

  it('fails and refunds a task that does not finish in time; a lease keeps a second instance from polling it twice', async () => {
    const before = await ledger(user.id, user.tokenId);
    suno.nextScript([{ status: 'IN_PROGRESS' }]);
    const stuck = await call(user.key, 'POST', '/suno/submit/music', { prompt: 'slow' });
    const row = await server.ctx.storage.db
      .selectFrom('tasks')
      .select('upstream_id')
      .where('task_id', '=', stuck.body.data)
      .executeTakeFirstOrThrow();
    // Two instances poll at once: each task is asked for once per round.
    const polls = suno.fetched.get(row.upstream_id) ?? 0;
    const peer = (second ?? server).relay.tasks;
    await Promise.all([server.relay.tasks.pollOnce(), ...(second ? [peer.pollOnce()] : [])]);
    expect(suno.fetched.get(row.upstream_id)).toBe(polls + 1);
    // An instance that crashed holding a lease: another instance takes the task once the lease is over.
    const crashed = new TaskPoller(server.ctx, server.relay, taskPlatforms, () => undefined);
    await server.ctx.storage.db
      .updateTable('tasks')
      .set({ lease_owner: crashed.owner, lease_until: nowSeconds() + 1000 })
      .where('task_id', '=', stuck.body.data)
      .execute();
    await peer.pollOnce();
    expect(suno.fetched.get(row.upstream_id)).toBe(polls + 1);
    await peer.pollOnce(nowSeconds() + 1001);
    expect(suno.fetched.get(row.upstream_id)).toBe(polls + 2);
    // Past TASK_TIMEOUT (an hour): failed and refunded, by whichever instance gets there first, once.
    const late = nowSeconds() + server.ctx.config.taskTimeoutSeconds + 60;
    await Promise.all([server.relay.tasks.pollOnce(late), ...(second ? [peer.pollOnce(late)] : [])]);
    const ended = await server.ctx.storage.db
      .selectFrom('tasks')
      .select(['status', 'fail_reason'])
      .where('task_id', '=', stuck.body.data)
      .executeTakeFirstOrThrow();
    expect(ended).toEqual({ status: 'FAILURE', fail_reason: '任务超时' });
    const after = await ledger(user.id, user.tokenId);
    expect(after.quota).toBe(before.quota);
    expect(after.refunded).toBe(before.refunded + musicQuota);
  });

  it('balances after concurrent submits, upstream refusals and failures: user, token, channel and logs agree', async () => {
    const payer = await newCaller(2_000_000);
    suno.nextScript([{ status: 'SUCCESS' }]);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_v, index) =>
        call(payer.key, 'POST', `/suno/submit/${index % 3 === 0 ? 'lyrics' : 'music'}`, { prompt: `song ${index}` }),
      ),
    );
    expect(results.every((result) => result.body.code === 'success')).toBe(true);
    suno.failSubmits(400, { code: 'error', message: 'prompt rejected' });
    const refused = await call(payer.key, 'POST', '/suno/submit/music', { prompt: 'bad' });
    expect(refused).toMatchObject({ status: 400, body: { code: 'error', data: null } });
    await server.relay.tasks.pollOnce();
    const state = await ledger(payer.id, payer.tokenId);
    const expected = 8 * musicQuota + 4 * 0.02 * quotaPerUnit;
    expect(state.consumed - state.refunded).toBe(expected);
    expect(state.used).toBe(expected);
    expect(state.quota).toBe(2_000_000 - expected);
    expect(state.tokenUsed).toBe(expected);
    expect(state.tokenRemain).toBe(2_000_000 - expected);
    // The balance check sees what the database took (the cached user was re-read).
    const cached = server.relay.access.findUser(payer.id);
    expect((cached instanceof Promise ? await cached : cached)!.quota).toBe(2_000_000 - expected);
  });

  it('refuses bad input, unpriced actions, a disabled task feature and a missing token with Suno-shaped 4xx', async () => {
    expect(await call(user.key, 'POST', '/suno/submit/lyrics', {})).toMatchObject({
      status: 400,
      body: { code: 'error', message: expect.stringContaining('prompt') },
    });
    expect(await call(user.key, 'POST', '/suno/submit/music', { prompt: 42 })).toMatchObject({ status: 400, body: { code: 'error' } });
    expect(await call(user.key, 'POST', '/suno/submit/video', { prompt: 'x' })).toMatchObject({ status: 400, body: { code: 'error' } });
    expect(await call(user.key, 'POST', '/suno/fetch', { ids: 'nope' })).toMatchObject({ status: 400, body: { code: 'error' } });
    expect((await call(user.key, 'GET', `/suno/fetch/${'x'.repeat(300)}`)).status).toBe(400);
    expect((await fetch(`${server.url}/suno/fetch/task_x`)).status).toBe(401);
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_lyrics: 0.02 }));
    expect(await call(user.key, 'POST', '/suno/submit/music', { prompt: 'x' })).toMatchObject({
      status: 400,
      body: { code: 'error', message: expect.stringContaining('suno_music') },
    });
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: musicPrice, suno_lyrics: 0.02 }));
    await setOption(server.ctx, 'TaskEnabled', 'false');
    expect(await call(user.key, 'POST', '/suno/submit/music', { prompt: 'x' })).toMatchObject({
      status: 403,
      body: { code: 'error', message: 'Tasks are not enabled' },
    });
    await setOption(server.ctx, 'TaskEnabled', 'true');
  });
});
