import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseKind } from '../../src/config.js';
import { openStorage, type Storage } from '../../src/db/index.js';
import { UnknownSchemaError } from '../../src/import/detect-schema.js';
import type { ImportReport, TableReport } from '../../src/import/report.js';
import { ForeignTargetError, runImport } from '../../src/import/run-import.js';
import { openSource } from '../../src/import/source.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { flushRelay } from '../helpers/relay-fixtures.js';
import { startTestServer } from '../helpers/test-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-storage.js';
import { quotaOfLog } from '../relay/sdk-setup.js';
import { aliceKey, alicePassword, buildSource, deletedAtSeconds, limitedKey, upstreamKey, vertexAccounts } from './source-fixture.js';
import type { SourceVariant } from './source-schemas.js';

interface Pair {
  source: DatabaseKind;
  variant: SourceVariant;
  target: DatabaseKind;
  goDsn?: boolean;
}

/**
 * Every source dialect and every target dialect, each schema variant more than once; pairs whose
 * server is not configured (TEST_POSTGRES_DSN / TEST_MYSQL_DSN) are skipped.
 */
const pairs: Pair[] = [
  { source: 'sqlite', variant: 'new-api-2025', target: 'sqlite' },
  { source: 'mysql', variant: 'new-api-2025', target: 'postgres', goDsn: true },
  { source: 'postgres', variant: 'new-api', target: 'mysql' },
  { source: 'mysql', variant: 'one-api', target: 'sqlite' },
  { source: 'sqlite', variant: 'one-api', target: 'postgres' },
  { source: 'postgres', variant: 'new-api-2025', target: 'sqlite' },
  { source: 'sqlite', variant: 'new-api', target: 'mysql' },
];
const isAvailable = (kind: DatabaseKind) =>
  kind === 'sqlite' || (kind === 'postgres' ? !!process.env.TEST_POSTGRES_DSN : !!process.env.TEST_MYSQL_DSN);

const options = { withLogs: true, withTasks: true, batchSize: 2 };

const tableOf = (report: ImportReport, table: string): TableReport => {
  const found = report.tables.find((entry) => entry.table === table);
  if (!found) throw new Error(`no ${table} in the report`);
  return found;
};

async function importOnce(from: string, target: Storage, dryRun: boolean): Promise<ImportReport> {
  const source = openSource(from);
  try {
    return await runImport(source, target, { ...options, dryRun });
  } finally {
    await source.close();
  }
}

function expectedCounts(variant: SourceVariant) {
  const isOneApi = variant === 'one-api';
  const is2025 = variant === 'new-api-2025';
  return {
    users: { read: 3, imported: 3, rejected: [] as string[] },
    tokens: { read: isOneApi ? 3 : 4, imported: isOneApi ? 2 : 3, rejected: ['12'] },
    channels: { read: is2025 ? 4 : 3, imported: is2025 ? 3 : 2, rejected: ['7'] },
    options: { read: is2025 ? 7 : 5, imported: is2025 ? 4 : 2, rejected: ['QuotaForNewUser'] },
    redemptions: { read: 2, imported: 2, rejected: [] },
    ...(isOneApi
      ? {}
      : {
          top_ups: { read: 2, imported: 1, rejected: ['31'] },
          tasks: { read: 1, imported: 1, rejected: [] },
          midjourneys: { read: 1, imported: 1, rejected: [] },
        }),
    logs: { read: 2, imported: 2, rejected: [] },
  } as Record<string, { read: number; imported: number; rejected: string[] }>;
}

describe('npm run import: one-api and new-api databases into ModelGate', () => {
  let upstream: MockOpenAi;
  beforeAll(async () => {
    upstream = await startMockOpenAi();
  });
  afterAll(async () => {
    await upstream.close();
  });

  for (const pair of pairs) {
    const name = `${pair.variant} on ${pair.source}${pair.goDsn ? ' (Go DSN)' : ''} into ${pair.target}`;
    it.skipIf(!isAvailable(pair.source) || !isAvailable(pair.target))(name, async () => {
      const source = await buildSource(pair.source, pair.variant, upstream.url, { goDsn: pair.goDsn });
      const targetDb: TestDatabase = await createTestDatabase(pair.target);
      const target = openStorage({
        kind: pair.target,
        dsn: targetDb.dsn,
        sqlitePath: targetDb.sqlitePath,
        poolSize: 2,
        onIdleError: () => undefined,
      });
      let targetOpen = true;
      try {
        const expected = expectedCounts(pair.variant);
        const abilityCount = pair.variant === 'new-api-2025' ? 6 : 5;

        // Dry run: the full report, and not one table created in ModelGate's database.
        const dry = await importOnce(source.from, target, true);
        expect(dry.flavor).toBe(pair.variant);
        expect(dry.dryRun).toBe(true);
        for (const [table, counts] of Object.entries(expected)) {
          const entry = tableOf(dry, table);
          expect({ table, read: entry.read, imported: entry.imported, rejected: entry.rejected.map((row) => row.id) }).toEqual({
            table,
            ...counts,
          });
        }
        expect(tableOf(dry, 'abilities').imported).toBe(abilityCount);
        expect(dry.unknownOptions).toEqual(['CheckinEnabled', 'LegacyFlag']);
        expect(tableOf(dry, 'tokens').rejected[0]!.reason).toContain('user 99 is not imported');
        expect((await target.db.introspection.getTables()).map((table) => table.name)).toEqual([]);

        // The real run writes what the dry run announced.
        const real = await importOnce(source.from, target, false);
        for (const [table, counts] of Object.entries(expected)) {
          const entry = tableOf(real, table);
          expect({ table, read: entry.read, imported: entry.imported, rejected: entry.rejected.map((row) => row.id) }).toEqual({
            table,
            ...counts,
          });
        }
        expect(tableOf(real, 'abilities').imported).toBe(abilityCount);
        const db = target.db;
        const alice = await db.selectFrom('users').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
        expect(alice).toMatchObject({
          username: 'alice',
          role: 1,
          quota: 5_000_000,
          used_quota: 1234,
          request_count: 7,
          aff_code: 'AF01',
          inviter_id: 1,
          email: 'alice@example.com',
          github_id: 'gh-alice',
          deleted_at: null,
        });
        if (pair.variant !== 'one-api')
          expect(alice).toMatchObject({
            aff_count: 2,
            aff_quota: 300,
            aff_history_quota: 600,
            telegram_id: 'tg-alice',
            linux_do_id: 'ld-alice',
          });
        if (pair.variant === 'new-api-2025')
          expect(alice).toMatchObject({
            setting: '{"notify_type":"email"}',
            remark: 'vip customer',
            created_time: 1_700_000_000,
            oidc_id: 'oidc-alice',
          });
        const bob = await db.selectFrom('users').select(['status', 'deleted_at']).where('id', '=', 3).executeTakeFirstOrThrow();
        expect(bob).toEqual(pair.variant === 'one-api' ? { status: 2, deleted_at: null } : { status: 1, deleted_at: deletedAtSeconds });
        const tokens = await db.selectFrom('tokens').selectAll().orderBy('id').execute();
        expect(tokens[0]).toMatchObject({
          id: 10,
          user_id: 2,
          key: aliceKey,
          remain_quota: 1_000_000,
          used_quota: 50,
          expired_time: -1,
          unlimited_quota: 0,
          model_limits_enabled: 0,
        });
        expect(tokens[1]).toMatchObject({
          id: 11,
          key: limitedKey,
          unlimited_quota: 1,
          model_limits_enabled: 1,
          model_limits: 'gpt-4o',
          allow_ips: '10.0.0.1',
        });
        if (pair.variant !== 'one-api') expect(tokens[2]).toMatchObject({ id: 13, deleted_at: deletedAtSeconds });
        const channels = await db.selectFrom('channels').selectAll().orderBy('id').execute();
        expect(channels[0]).toMatchObject({
          id: 5,
          type: 1,
          key: upstreamKey,
          base_url: upstream.url,
          models: 'gpt-4o-mini,gpt-4o',
          group: 'default,vip',
          priority: 10,
          weight: 5,
          balance: 12.5,
          used_quota: 777,
        });
        expect(channels[1]).toMatchObject({ id: 6, type: 3, status: 3, other: '2024-02-01' });
        if (pair.variant !== 'one-api')
          expect(JSON.parse(channels[1]!.other_info)).toEqual({ status_reason: 'quota exceeded', status_time: 1_700_000_900 });
        if (pair.variant === 'new-api-2025') {
          const notes = tableOf(real, 'channels').notes.join('\n');
          expect(notes).toContain('channels.header_override');
          expect(notes).toContain('1 row(s): a multi-key channel with disabled keys');
          // new-api's JSON-array multi-key becomes one service account per line, as ModelGate reads keys.
          expect(channels[2]!.key.split('\n').map((line) => JSON.parse(line))).toEqual(vertexAccounts);
        }
        const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : 1);
        const options = (await db.selectFrom('options').selectAll().execute()).sort(byKey);
        expect(options).toEqual(
          [
            { key: 'ModelRatio', value: '{"gpt-4o-mini":0.5,"gpt-4o":2.5}' },
            { key: 'SystemName', value: 'Old Gateway' },
            ...(pair.variant === 'new-api-2025'
              ? [
                  { key: 'fetch_setting.domain_filter_mode', value: 'true' },
                  { key: 'fetch_setting.domain_list', value: '["*.hooks.example.com"]' },
                ]
              : []),
          ].sort(byKey),
        );
        expect(await db.selectFrom('setups').select('id').execute()).toHaveLength(1);

        // Twice: nothing is written again.
        const again = await importOnce(source.from, target, false);
        for (const [table, counts] of Object.entries(expected)) {
          const entry = tableOf(again, table);
          expect({ table, imported: entry.imported, alreadyPresent: entry.alreadyPresent }).toEqual({
            table,
            imported: 0,
            alreadyPresent: counts.imported,
          });
        }
        expect(await db.selectFrom('users').select('id').execute()).toHaveLength(3);
        expect(await db.selectFrom('logs').select('id').execute()).toHaveLength(2);
        expect(await db.selectFrom('abilities').select('model').execute()).toHaveLength(abilityCount);

        // ModelGate on the imported database: the old password signs in, the old key calls the
        // relay through the imported channel, and the bill lands exactly.
        await target.close();
        targetOpen = false;
        const server = await startTestServer({ kind: pair.target, database: targetDb });
        try {
          const login = await server.client().post('/api/user/login', { username: 'alice', password: alicePassword });
          expect(login.body).toMatchObject({ success: true, data: { id: 2, username: 'alice' } });
          const deleted = await server.client().post('/api/user/login', { username: 'bob', password: 'bob-old-pass' });
          expect(deleted.body.success).toBe(false);

          const before = upstream.requestsFor(upstreamKey).length;
          const openai = new OpenAI({ apiKey: `sk-${aliceKey}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
          const answer = await openai.chat.completions.create({
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content: 'hello from an imported token' }],
          });
          expect(answer.choices[0]!.message.content).toContain('mock');
          expect(upstream.requestsFor(upstreamKey).length).toBe(before + 1);

          await flushRelay(server.ctx);
          const sdb = server.ctx.storage.db;
          const logs = await sdb.selectFrom('logs').selectAll().where('type', '=', 2).where('id', '>', 41).execute();
          expect(logs).toHaveLength(1);
          const log = logs[0]!;
          const other = JSON.parse(log.other);
          expect(other.model_ratio).toBe(0.5);
          expect(log).toMatchObject({
            user_id: 2,
            token_id: 10,
            channel_id: 5,
            model_name: 'gpt-4o-mini',
            prompt_tokens: answer.usage!.prompt_tokens,
            completion_tokens: answer.usage!.completion_tokens,
          });
          const quota = Number(log.quota);
          expect(quota).toBeGreaterThan(0);
          expect(quota).toBe(quotaOfLog(log, other));
          const user = await sdb
            .selectFrom('users')
            .select(['quota', 'used_quota', 'request_count'])
            .where('id', '=', 2)
            .executeTakeFirstOrThrow();
          expect(user).toEqual({ quota: 5_000_000 - quota, used_quota: 1234 + quota, request_count: 8 });
          const token = await sdb
            .selectFrom('tokens')
            .select(['remain_quota', 'used_quota'])
            .where('id', '=', 10)
            .executeTakeFirstOrThrow();
          expect(token).toEqual({ remain_quota: 1_000_000 - quota, used_quota: 50 + quota });
          const channel = await sdb.selectFrom('channels').select('used_quota').where('id', '=', 5).executeTakeFirstOrThrow();
          expect(channel.used_quota).toBe(777 + quota);
          // A new row gets an id past the imported ones (PostgreSQL sequences were moved on).
          const created = await sdb
            .insertInto('redemptions')
            .values({ key: 'NewCodeNewCodeNewCodeNewCode0001', name: 'new' })
            .executeTakeFirst();
          void created;
          const newest = await sdb.selectFrom('redemptions').select('id').where('name', '=', 'new').executeTakeFirstOrThrow();
          expect(newest.id).toBeGreaterThan(21);
        } finally {
          await server.stop();
        }
      } finally {
        if (targetOpen) await target.close();
        await targetDb.drop();
        await source.drop();
      }
    });
  }
});

describe('rows the target database refuses', () => {
  it.skipIf(!isAvailable('postgres'))('are reported one by one while the rest of their batch is written', async () => {
    const source = await buildSource('sqlite', 'new-api', 'http://127.0.0.1:9');
    const extra = new Database(source.from);
    // PostgreSQL refuses NUL in text; SQLite keeps it.
    extra.prepare("INSERT INTO users (id, username, password, display_name, aff_code) VALUES (4, 'nul', 'x', ?, 'NUL1')").run('a\u0000b');
    extra.close();
    const targetDb = await createTestDatabase('postgres');
    const target = openStorage({ kind: 'postgres', dsn: targetDb.dsn, sqlitePath: '', poolSize: 2, onIdleError: () => undefined });
    try {
      const source2 = openSource(source.from);
      const report = await runImport(source2, target, { ...options, dryRun: false, batchSize: 500 }).finally(() => source2.close());
      const users = tableOf(report, 'users');
      expect({ read: users.read, imported: users.imported }).toEqual({ read: 4, imported: 3 });
      expect(users.rejected).toHaveLength(1);
      expect(users.rejected[0]!.id).toBe('4');
      expect(users.rejected[0]!.reason).toMatch(/^the database refused it: /);
      expect(await target.db.selectFrom('users').select('id').orderBy('id').execute()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
      expect(tableOf(report, 'tokens').imported).toBe(3);
    } finally {
      await target.close();
      await targetDb.drop();
      await source.drop();
    }
  });
});

describe('refusals', () => {
  it("refuses to write into a database that is not ModelGate's (SQL_DSN left on the old gateway)", async () => {
    const source = await buildSource('sqlite', 'new-api', 'http://127.0.0.1:9');
    const old = await buildSource('sqlite', 'one-api', 'http://127.0.0.1:9');
    const target = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: old.from });
    try {
      const error = await importOnce(source.from, target, false).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ForeignTargetError);
      expect((error as Error).message).toContain('already holds tables ModelGate did not create');
      const names = (await target.db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name);
      expect(names).not.toContain('setups');
      expect(names).not.toContain('kysely_migration');
    } finally {
      await target.close();
      await old.drop();
      await source.drop();
    }
  });

  for (const kind of (['sqlite', 'postgres', 'mysql'] as DatabaseKind[]).filter(isAvailable)) {
    it(`refuses a ${kind} database that is not a gateway's, with a message, writing nothing`, async () => {
      const foreign = await createTestDatabase(kind);
      const seed = openStorage({ kind, dsn: foreign.dsn, sqlitePath: foreign.sqlitePath, poolSize: 1, onIdleError: () => undefined });
      const targetDb = await createTestDatabase('sqlite');
      const target = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: targetDb.sqlitePath });
      try {
        await seed.db.schema.createTable('products').addColumn('id', 'integer').addColumn('name', 'varchar(50)').execute();
        await seed.db.schema.createTable('users').addColumn('id', 'integer').addColumn('email', 'varchar(50)').execute();
        await seed.close();
        const from = kind === 'sqlite' ? foreign.sqlitePath : foreign.dsn;
        const error = await importOnce(from, target, false).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(UnknownSchemaError);
        expect((error as Error).message).toMatch(/is not a one-api or new-api database: table\(s\) tokens, channels, options missing/);
        expect((await target.db.introspection.getTables()).map((table) => table.name)).toEqual([]);
      } finally {
        await target.close();
        await targetDb.drop();
        await foreign.drop();
      }
    });
  }
});
