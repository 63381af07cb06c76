import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseKind } from '../../src/config.js';
import { insertReturningId, migrate, openStorage, type Storage } from '../../src/db/index.js';
import { callChat, chaosSize, type CallResult } from '../helpers/chaos-load.js';
import { checkLedger } from '../helpers/ledger-balance.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { killAll, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-storage.js';

/**
 * kill -9 of one of two ModelGate processes on one PostgreSQL (and MySQL) database and one Redis, under load.
 * docs/billing.md: a hard kill loses at most the requests settled since the last successful flush
 * (about one BATCH_UPDATE_INTERVAL_MS of traffic); nothing answered before that may be lost, and the
 * surviving instance loses nothing. Each instance gets its own token, so the consume logs of B's token
 * are what B wrote. The measured loss is printed; the bound allows the flush interval plus `slackMs`
 * for the flush's own duration and timer lag on a loaded machine.
 */
const flushIntervalMs = 1000;
const slackMs = 500;
const { concurrency } = chaosSize({ requests: 300, concurrency: 16 });
const redisUrl = process.env.TEST_REDIS_URL;
const databases: Array<{ kind: DatabaseKind; dsn: string | undefined }> = [
  { kind: 'postgres', dsn: process.env.TEST_POSTGRES_DSN },
  { kind: 'mysql', dsn: process.env.TEST_MYSQL_DSN },
];
const initialQuota = 1e15;

interface Answer {
  instance: 'a' | 'b';
  startedAt: number;
  result: CallResult;
}

async function seed(storage: Storage, upstreamUrl: string) {
  const now = Math.floor(Date.now() / 1000);
  const userId = await insertReturningId(storage, 'users', {
    username: 'killtest',
    password: 'not-a-real-hash',
    role: 1,
    status: 1,
    quota: initialQuota,
    group: 'default',
    setting: '',
    created_time: now,
  });
  const token = async (name: string) => {
    const key = randomBytes(24).toString('hex');
    const id = await insertReturningId(storage, 'tokens', {
      user_id: userId,
      key,
      name,
      status: 1,
      created_time: now,
      expired_time: -1,
      remain_quota: 0,
      unlimited_quota: 1,
      group: '',
    });
    return { id, apiKey: `sk-${key}` };
  };
  const tokens = { a: await token('on-a'), b: await token('on-b') };
  const channelId = await insertReturningId(storage, 'channels', {
    type: 1,
    name: 'healthy',
    key: 'healthy',
    base_url: upstreamUrl,
    models: 'gpt-4o-mini',
    group: 'default',
    auto_ban: 0,
    status: 1,
    created_time: now,
  });
  await storage.db
    .insertInto('abilities')
    .values({ group: 'default', model: 'gpt-4o-mini', channel_id: channelId, enabled: 1, priority: 0, weight: 0, tag: '' })
    .execute();
  return { userId, tokens };
}

describe.each(databases)('kill -9 of one of two instances on $kind with Redis', ({ kind, dsn }) => {
  let database: TestDatabase | null = null;
  let storage: Storage | null = null;
  let upstream: MockOpenAi | null = null;
  const processes: ServerProcess[] = [];
  afterEach(async () => {
    await killAll(processes);
    await storage?.close();
    await upstream?.close();
    await database?.drop();
    [database, storage, upstream] = [null, null, null];
  });

  it.skipIf(!dsn || !redisUrl)(
    'loses only what the killed instance answered within its last flush window',
    async () => {
      upstream = await startMockOpenAi();
      database = await createTestDatabase(kind);
      storage = openStorage({ kind, dsn: database.dsn, sqlitePath: '', poolSize: 2 });
      await migrate(storage);
      const { userId, tokens } = await seed(storage, upstream.url);

      const env = {
        SQL_DSN: database.dsn,
        REDIS_CONN_STRING: redisUrl!,
        REDIS_KEY_PREFIX: `mg-kill-${randomBytes(4).toString('hex')}:`,
        SESSION_SECRET: 'kill-test-secret',
        BATCH_UPDATE_INTERVAL_MS: String(flushIntervalMs),
        GLOBAL_API_RATE_LIMIT: '1000000',
        CRITICAL_RATE_LIMIT: '1000000',
      };
      const a = await startServerProcess({ ...env, NODE_TYPE: 'master' });
      processes.push(a);
      const b = await startServerProcess({ ...env, NODE_TYPE: 'slave' });
      processes.push(b);

      const answers: Answer[] = [];
      let killAt = Infinity;
      let isStopped = false;
      const worker = async (instance: 'a' | 'b', i: number) => {
        for (let n = 0; !isStopped && !(instance === 'b' && performance.now() > killAt); n += 1) {
          const startedAt = performance.now();
          const result = await callChat({
            baseUrl: instance === 'a' ? a.url : b.url,
            apiKey: tokens[instance].apiKey,
            body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `kill test ${i}.${n}` }] },
          });
          answers.push({ instance, startedAt, result });
        }
      };
      const loadStart = performance.now();
      const workers = Array.from({ length: concurrency }, (_, i) => worker(i % 2 === 0 ? 'a' : 'b', i));
      // Several flushes happen before the kill, at an arbitrary point of B's flush cycle.
      await sleep(3 * flushIntervalMs + Math.floor(Math.random() * flushIntervalMs));
      killAt = performance.now();
      b.child.kill('SIGKILL');
      expect((await b.exited).signal).toBe('SIGKILL');
      // A keeps serving after B is gone.
      await sleep(flushIntervalMs);
      isStopped = true;
      await Promise.all(workers);
      a.child.kill('SIGTERM');
      expect(await a.exited, a.output()).toEqual({ code: 0, signal: null });

      const report = await checkLedger(storage.db, {
        users: [{ id: userId, initialQuota }],
        tokens: [
          { id: tokens.a.id, initialRemain: null },
          { id: tokens.b.id, initialRemain: null },
        ],
      });
      const complete = (instance: 'a' | 'b') =>
        answers.filter((answer) => answer.instance === instance && answer.result.outcome === 'complete');
      const answeredB = complete('b');
      const windowStart = killAt - flushIntervalMs - slackMs;
      const inWindow = answeredB.filter((answer) => answer.result.finishedAt > windowStart).length;
      const inLastInterval = answeredB.filter((answer) => answer.result.finishedAt > killAt - flushIntervalMs).length;
      const unansweredAtKill = answers.filter(
        (answer) => answer.instance === 'b' && answer.result.outcome !== 'complete' && answer.startedAt <= killAt,
      ).length;
      const logsA = report.logsByToken.get(tokens.a.id) ?? 0;
      const logsB = report.logsByToken.get(tokens.b.id) ?? 0;
      const lost = answeredB.length - logsB;
      const seconds = (killAt - loadStart) / 1000;
      console.log(
        `[chaos kill -9 ${kind}] concurrency ${concurrency}, B killed after ${seconds.toFixed(1)} s: B answered ${answeredB.length} ` +
          `(${(answeredB.length / seconds).toFixed(0)}/s), ${logsB} in the database → lost ${lost} (${((Math.max(0, lost) / answeredB.length) * 100).toFixed(1)}%); ` +
          `B answered ${inLastInterval} in the last ${flushIntervalMs} ms and ${inWindow} in the last ${flushIntervalMs + slackMs} ms before the kill; ` +
          `${unansweredAtKill} in flight on B at the kill; A answered ${complete('a').length}, ${logsA} in the database`,
      );

      expect(report.violations.slice(0, 20), `${report.violations.length} ledger violations`).toEqual([]);
      expect(answeredB.length).toBeGreaterThan(0);
      // The survivor flushed everything at its graceful exit.
      expect(logsA).toBe(complete('a').length);
      // B: only what it answered within the window may be missing …
      expect(lost, 'lost more than B answered within its last flush window').toBeLessThanOrEqual(inWindow);
      // … and at most the requests in flight at the kill can be billed without their answer reaching the client.
      expect(logsB).toBeLessThanOrEqual(answeredB.length + unansweredAtKill);
    },
    120_000,
  );
});
