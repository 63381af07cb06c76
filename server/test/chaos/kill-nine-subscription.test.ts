import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { insertReturningId, migrate, openStorage, type Storage } from '../../src/db/index.js';
import { killAll, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

/**
 * kill -9 of an instance whose calls hold subscription shares (docs/billing.md, "Funding by
 * subscriptions"): a call's share is taken from the allowance when it is held, so a hard kill
 * mid-call left it taken for good. The share is written down (`funding_holds`); the next start
 * gives back what the killed process held, and the allowance ends exactly at what the log rows say
 * it paid. One instance, no Redis, on every database of the matrix.
 */
const allowance = 100_000;

/** An OpenAI upstream: a JSON answer with usage, or a stream that sends one piece and then hangs. */
async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += String(chunk)));
    req.on('end', () => {
      if (JSON.parse(body).stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }] })}\n\n`,
        );
        open.add(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c2',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function seed(storage: Storage, upstreamUrl: string) {
  const now = Math.floor(Date.now() / 1000);
  await storage.db
    .insertInto('options')
    .values([
      { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o-mini': 1 }) },
      { key: 'CompletionRatio', value: JSON.stringify({ 'gpt-4o-mini': 1 }) },
    ])
    .execute();
  const userId = await insertReturningId(storage, 'users', {
    username: 'killed-subscriber',
    password: 'not-a-real-hash',
    role: 1,
    status: 1,
    quota: 1_000_000,
    group: 'default',
    setting: '',
    created_time: now,
  });
  const key = randomBytes(24).toString('hex');
  await insertReturningId(storage, 'tokens', {
    user_id: userId,
    key,
    name: 'k',
    status: 1,
    created_time: now,
    expired_time: -1,
    remain_quota: 0,
    unlimited_quota: 1,
    group: '',
  });
  const channelId = await insertReturningId(storage, 'channels', {
    type: 1,
    name: 'hangs',
    key: 'upstream-key',
    base_url: upstreamUrl,
    models: 'gpt-4o-mini',
    group: 'default',
    status: 1,
    created_time: now,
  });
  await storage.db
    .insertInto('abilities')
    .values({ group: 'default', model: 'gpt-4o-mini', channel_id: channelId, enabled: 1, priority: 0, weight: 0, tag: '' })
    .execute();
  const sub = await insertReturningId(storage, 'user_subscriptions', {
    user_id: userId,
    plan_id: 1,
    plan_name: 'Pro',
    source: 'admin',
    status: 'active',
    period_quota: allowance,
    remaining_quota: allowance,
    period_start: now - 60,
    period_end: now + 86_400,
    ends_at: now + 86_400,
  });
  return { userId, apiKey: `sk-${key}`, sub };
}

async function until<T>(read: () => Promise<T>, isDone: (value: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (isDone(value)) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

describe.each(storageKinds())('kill -9 mid-call with subscription shares held, on %s', (kind) => {
  let database: TestDatabase | null = null;
  let storage: Storage | null = null;
  let upstream: Awaited<ReturnType<typeof startUpstream>> | null = null;
  const processes: ServerProcess[] = [];
  afterEach(async () => {
    await killAll(processes);
    await storage?.close();
    await upstream?.close();
    await database?.drop();
    [database, storage, upstream] = [null, null, null];
  });

  it('the next start gives back the shares the killed process held; billed calls stay billed', async () => {
    upstream = await startUpstream();
    database = await createTestDatabase(kind);
    storage = openStorage({ kind, dsn: database.dsn, sqlitePath: database.sqlitePath, poolSize: 2 });
    await migrate(storage);
    const { userId, apiKey, sub } = await seed(storage, upstream.url);
    const db = storage.db;
    const env = {
      SESSION_SECRET: 'kill-test-secret',
      BATCH_UPDATE_INTERVAL_MS: '100',
      ...(kind === 'sqlite' ? { SQLITE_PATH: database.sqlitePath } : { SQL_DSN: database.dsn }),
    };
    const remaining = async () =>
      Number(
        (await db.selectFrom('user_subscriptions').select('remaining_quota').where('id', '=', sub).executeTakeFirstOrThrow())
          .remaining_quota,
      );
    const heldCount = async () => (await db.selectFrom('funding_holds').select('id').execute()).length;
    const ask = (url: string, stream: boolean) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 1000, stream }),
      });

    const a = await startServerProcess(env);
    processes.push(a);
    // Two calls answered and billed: the allowance paid them, and their log rows are written.
    for (let i = 0; i < 2; i += 1) expect((await ask(a.url, false)).status).toBe(200);
    const paidRows = await until(
      () => db.selectFrom('logs').select('other').where('user_id', '=', userId).where('type', '=', 2).execute(),
      (rows) => rows.length === 2,
      'the two log rows',
    );
    const paid = paidRows.reduce(
      (total, row) => total + Number((JSON.parse(row.other) as { subscription_quota: number }).subscription_quota),
      0,
    );
    expect(paid).toBe(30);
    await until(heldCount, (count) => count === 0, 'the billed shares to be dropped with their log rows');
    expect(await remaining()).toBe(allowance - paid);

    // Three streams in flight, each holding its worst cost from the allowance, when the process is killed.
    const streams = await Promise.all([0, 1, 2].map(() => ask(a.url, true)));
    for (const stream of streams) {
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      await reader.read();
    }
    expect(await heldCount()).toBe(3);
    const heldQuota = allowance - paid - (await remaining());
    expect(heldQuota).toBeGreaterThanOrEqual(3 * 1000);
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    expect(await remaining()).toBe(allowance - paid - heldQuota);

    const b = await startServerProcess(env);
    processes.push(b);
    await until(heldCount, (count) => count === 0, "the killed process's shares to be given back");
    expect(await remaining()).toBe(allowance - paid);
    // What the log rows say the allowance paid is what it is short of: the ledger is exact again.
    const rows = await db.selectFrom('logs').select('other').where('user_id', '=', userId).where('type', '=', 2).execute();
    expect(rows).toHaveLength(2);
    // The warning reaches the process's stdout just after the give-back commits: wait for it.
    await until(
      async () => b.output(),
      (text) => /subscription shares held by a stopped instance given back/.test(text),
      'the give-back warning',
    );
    // The killed instance's heartbeat row is gone; the new one beats.
    const instances = await db.selectFrom('relay_instances').select('id').execute();
    expect(instances).toHaveLength(1);
    b.child.kill('SIGTERM');
    expect((await b.exited).code, b.output()).toBe(0);
    expect(await db.selectFrom('relay_instances').select('id').execute()).toEqual([]);
  }, 90_000);
});
