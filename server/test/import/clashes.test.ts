import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/db/index.js';
import type { ImportOptions } from '../../src/import/context.js';
import type { ImportReport, TableReport } from '../../src/import/report.js';
import { ImportRefusedError } from '../../src/import/root-pair.js';
import { runImport } from '../../src/import/run-import.js';
import { openSource } from '../../src/import/source.js';
import { createUserAndLogin, login, rootPassword, setupRootAndLogin } from '../helpers/accounts.js';
import { startTestServer } from '../helpers/test-server.js';
import { createTestDatabase, createTestStorage, storageKinds, type TestDatabase } from '../helpers/test-storage.js';
import { aliceKey, alicePassword, buildSource, type SourceFixture } from './source-fixture.js';
import { snapshotTarget } from './target-snapshot.js';

const tableOf = (report: ImportReport, table: string): TableReport => {
  const found = report.tables.find((entry) => entry.table === table);
  if (!found) throw new Error(`no ${table} in the report`);
  return found;
};

async function importFrom(source: SourceFixture, target: Storage, options: Partial<ImportOptions> = {}): Promise<ImportReport> {
  const opened = openSource(source.from);
  try {
    return await runImport(opened, target, { dryRun: false, withLogs: true, withTasks: true, batchSize: 2, ...options });
  } finally {
    await opened.close();
  }
}

const clashesOf = (report: ImportReport, table: string) => tableOf(report, table).clashes.map((clash) => clash.id);

describe('an import into a ModelGate that was set up: clashes', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  for (const kind of storageKinds()) {
    it(`refuses the setup's root and a taken id, writing nothing, until the options resolve them (${kind})`, async () => {
      const source = await buildSource(kind, 'new-api', 'http://127.0.0.1:9');
      cleanups.push(() => source.drop());
      // ModelGate set up through its setup page (root / root-pass-123), with a token of the root and a user carol (id 2).
      const database: TestDatabase = await createTestDatabase(kind);
      cleanups.push(() => database.drop());
      const server = await startTestServer({ kind, database });
      try {
        const root = await setupRootAndLogin(server);
        expect((await root.client.post('/api/token/', { name: 'mine', unlimited_quota: true })).body.success).toBe(true);
        await createUserAndLogin(server, root.client, 'carol');
      } finally {
        await server.stop();
      }
      const target = openStorage({ kind, dsn: database.dsn, sqlitePath: database.sqlitePath, poolSize: 2, onIdleError: () => undefined });
      cleanups.push(() => target.close());
      // A token of ModelGate's root with the id of alice's first token.
      await target.db
        .insertInto('tokens')
        .values({ id: 10, user_id: 1, key: 'Spare'.repeat(9), name: 'spare' })
        .execute();
      const before = await snapshotTarget(target);

      // No option: both clashes named, with what differs and what resolves them; nothing written.
      const refused = await importFrom(source, target);
      expect(refused.refused).toBe(true);
      const [rootClash, aliceClash] = tableOf(refused, 'users').clashes;
      expect(rootClash).toMatchObject({ id: '1', name: 'root' });
      expect(rootClash!.reason).toMatch(/^ModelGate's user 1 \(root\) has the same id and username but differs in .*password/);
      expect(rootClash!.reason).toContain('quota');
      expect(rootClash!.hint).toContain('--take-source-root');
      expect(aliceClash).toMatchObject({ id: '2', name: 'alice' });
      expect(aliceClash!.reason).toMatch(/^id 2 is ModelGate's user 2 \(carol\), a different user \(differs in username, password/);
      expect(aliceClash!.hint).toContain('--remap-ids');
      expect(tableOf(refused, 'users').clashes).toHaveLength(2);
      // The clash is named once: alice's tokens are not listed again as tokens of a user not imported.
      expect(tableOf(refused, 'tokens').rejected.map((row) => row.id)).toEqual(['12']);
      expect(tableOf(refused, 'tokens').clashes).toEqual([
        {
          id: '10',
          name: 'main',
          reason: expect.stringMatching(/^id 10 is ModelGate's token 10 \(spare\), a different token \(differs in user_id, key, name/),
          hint: '--remap-ids imports it under a new id',
        },
      ]);
      expect(await snapshotTarget(target)).toEqual(before);

      // One option alone leaves the other clash: still nothing written.
      const remapOnly = await importFrom(source, target, { remapIds: true });
      expect({ users: clashesOf(remapOnly, 'users'), tokens: clashesOf(remapOnly, 'tokens') }).toEqual({ users: ['1'], tokens: [] });
      expect(tableOf(remapOnly, 'users').clashes[0]!.reason).toContain("its username is already ModelGate's user 1 (root)");
      const rootOnly = await importFrom(source, target, { takeSourceRoot: true });
      expect({ users: clashesOf(rootOnly, 'users'), tokens: clashesOf(rootOnly, 'tokens') }).toEqual({ users: ['2'], tokens: ['10'] });
      expect(await snapshotTarget(target)).toEqual(before);

      // A dry run with both shows the plan: alice under a new id, the root taking ModelGate's root's place.
      const dry = await importFrom(source, target, { takeSourceRoot: true, remapIds: true, dryRun: true });
      expect(dry.refused).toBe(false);
      expect(tableOf(dry, 'users').moved).toEqual([[2, 4]]);
      expect(tableOf(dry, 'tokens').moved).toEqual([[10, 14]]);
      expect(tableOf(dry, 'users').notes.join('\n')).toContain(
        "the source's root (user 1, root) takes the place of ModelGate's root (user 1, root)",
      );
      expect(await snapshotTarget(target)).toEqual(before);

      // Both: the old root is ModelGate's root (row 1), alice is user 4 and everything of hers follows.
      const done = await importFrom(source, target, { takeSourceRoot: true, remapIds: true });
      expect(done.refused).toBe(false);
      const users = tableOf(done, 'users');
      expect({ imported: users.imported, moved: users.moved, clashes: users.clashes }).toEqual({
        imported: 3,
        moved: [[2, 4]],
        clashes: [],
      });
      const db = target.db;
      const rootRow = await db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      const setupRoot = before
        .users!.map((row) => JSON.parse(row as string) as { id: number; session_version: number })
        .find((row) => row.id === 1)!;
      expect(rootRow).toMatchObject({
        username: 'root',
        role: 100,
        quota: 0,
        aff_code: 'ROOT',
        session_version: setupRoot.session_version + 1,
      });
      expect(bcrypt.compareSync('root-old-pass', rootRow.password)).toBe(true);
      expect(
        await db.selectFrom('tokens').select(['id', 'user_id']).where('name', 'in', ['mine', 'spare']).orderBy('id').execute(),
      ).toEqual([
        { id: 1, user_id: 1 },
        { id: 10, user_id: 1 },
      ]);
      expect(await db.selectFrom('users').select(['id', 'username']).orderBy('id').execute()).toEqual([
        { id: 1, username: 'root' },
        { id: 2, username: 'carol' },
        { id: 3, username: 'bob' },
        { id: 4, username: 'alice' },
      ]);
      expect(tableOf(done, 'tokens').moved).toEqual([[10, 14]]);
      const tokens = await db.selectFrom('tokens').select(['id', 'user_id', 'key']).where('id', '>', 10).orderBy('id').execute();
      expect(tokens.map((token) => [token.id, token.user_id])).toEqual([
        [11, 4],
        [13, 4],
        [14, 4],
      ]);
      expect(tokens[2]!.key).toBe(aliceKey);
      expect(await db.selectFrom('top_ups').select(['id', 'user_id']).execute()).toEqual([{ id: 30, user_id: 4 }]);
      expect(await db.selectFrom('redemptions').select(['id', 'user_id', 'used_user_id']).orderBy('id').execute()).toEqual([
        { id: 20, user_id: 1, used_user_id: 0 },
        { id: 21, user_id: 1, used_user_id: 4 },
      ]);
      expect(await db.selectFrom('logs').select(['id', 'user_id', 'token_id', 'channel_id']).orderBy('id').execute()).toEqual([
        { id: 40, user_id: 4, token_id: 14, channel_id: 5 },
        { id: 41, user_id: 4, token_id: 0, channel_id: 0 },
      ]);
      expect(await db.selectFrom('tasks').select(['user_id', 'channel_id']).execute()).toEqual([{ user_id: 4, channel_id: 5 }]);
      expect(await db.selectFrom('midjourneys').select(['user_id', 'channel_id']).execute()).toEqual([{ user_id: 4, channel_id: 5 }]);
      // The rows the source itself could not give stay listed (a partial import).
      expect(tableOf(done, 'tokens').rejected.map((row) => row.id)).toEqual(['12']);

      // A second run, without options, finds every row where the first put it and writes nothing.
      const written = await snapshotTarget(target);
      const again = await importFrom(source, target);
      expect(again.refused).toBe(false);
      expect({
        imported: tableOf(again, 'users').imported,
        present: tableOf(again, 'users').alreadyPresent,
        moved: tableOf(again, 'users').moved,
      }).toEqual({ imported: 0, present: 3, moved: [[2, 4]] });
      for (const table of ['tokens', 'redemptions', 'top_ups', 'logs', 'tasks', 'midjourneys'])
        expect({ table, imported: tableOf(again, table).imported }).toEqual({ table, imported: 0 });
      expect(tableOf(again, 'tokens').moved).toEqual([[10, 14]]);
      expect(await snapshotTarget(target)).toEqual(written);
      await target.close();
      cleanups.pop();

      // ModelGate signs the old root and alice in with their old passwords, under their ids.
      const after = await startTestServer({ kind, database });
      try {
        expect((await login(after.client(), 'root', 'root-old-pass')).userId).toBe(1);
        expect((await after.client().post('/api/user/login', { username: 'root', password: rootPassword })).body.success).toBe(false);
        expect((await login(after.client(), 'alice', alicePassword)).userId).toBe(4);
        expect((await login(after.client(), 'carol', 'carol-pass')).userId).toBe(2);
      } finally {
        await after.stop();
      }
    });

    it(`refuses a token key or username that ModelGate holds for someone else, which no option resolves (${kind})`, async () => {
      const source = await buildSource(kind, 'new-api', 'http://127.0.0.1:9');
      cleanups.push(() => source.drop());
      const { storage: target, cleanup } = await createTestStorage(kind);
      cleanups.push(cleanup);
      await target.db
        .insertInto('users')
        .values([
          { id: 7, username: 'zed', password: 'x' },
          { id: 9, username: 'bob', password: 'y' },
        ])
        .execute();
      await target.db.insertInto('tokens').values({ id: 50, user_id: 7, key: aliceKey, name: 'zeds' }).execute();
      const before = await snapshotTarget(target);

      for (const options of [{}, { remapIds: true, takeSourceRoot: true }]) {
        const report = await importFrom(source, target, options);
        expect(report.refused).toBe(true);
        const [bob] = tableOf(report, 'users').clashes;
        expect(bob).toMatchObject({ id: '3', name: 'bob' });
        expect(bob!.reason).toMatch(/^its username is already ModelGate's user 9 \(bob\) \(differs in password/);
        const [token] = tableOf(report, 'tokens').clashes;
        expect(token).toMatchObject({ id: '10', name: 'main' });
        expect(token!.reason).toMatch(
          /^its key is already ModelGate's token 50 \(zeds\) of user 7, where this token belongs to user 2 \(differs in user_id/,
        );
        expect(token!.hint).toContain('stays with its user');
        expect(JSON.stringify(report)).not.toContain(aliceKey);
        expect({ users: clashesOf(report, 'users'), tokens: clashesOf(report, 'tokens') }).toEqual({ users: ['3'], tokens: ['10'] });
        expect(await snapshotTarget(target)).toEqual(before);
      }
    });
  }
});

describe('the source root next to a root of another name', () => {
  it('is never a second root: --remap-ids alone is refused, --take-source-root replaces the setup root', async () => {
    const source = await buildSource('sqlite', 'new-api', 'http://127.0.0.1:9');
    const { storage: target, cleanup } = await createTestStorage('sqlite');
    try {
      // The setup page's root named admin (id 1), and a log of the source naming a user it no longer has (9).
      await target.db.insertInto('users').values({ id: 1, username: 'admin', password: 'x', role: 100, aff_code: 'ADM1' }).execute();
      await target.db.insertInto('setups').values({ id: 1, version: 'test', initialized_at: 1 }).execute();
      const { default: Database } = await import('better-sqlite3');
      const extra = new Database(source.from);
      extra
        .prepare("INSERT INTO logs (id, user_id, created_at, type, content, username) VALUES (42, 9, 1700000600, 2, 'gone', 'ghost')")
        .run();
      extra.close();
      const before = await snapshotTarget(target);

      const plain = await importFrom(source, target);
      expect(tableOf(plain, 'users').clashes).toEqual([
        expect.objectContaining({
          id: '1',
          name: 'root',
          reason: expect.stringMatching(/^id 1 is ModelGate's user 1 \(admin\), a different user/),
          hint: expect.stringContaining('--take-source-root'),
        }),
      ]);
      const remapped = await importFrom(source, target, { remapIds: true });
      expect(tableOf(remapped, 'users').clashes).toEqual([
        expect.objectContaining({
          id: '1',
          reason: expect.stringContaining('ModelGate already has a root (user 1, admin); the import does not make a second one'),
        }),
      ]);
      expect(await snapshotTarget(target)).toEqual(before);

      const taken = await importFrom(source, target, { takeSourceRoot: true });
      expect(taken.refused).toBe(false);
      expect(await target.db.selectFrom('users').select(['id', 'username', 'role', 'aff_code']).orderBy('id').execute()).toEqual([
        { id: 1, username: 'root', role: 100, aff_code: 'ROOT' },
        { id: 2, username: 'alice', role: 1, aff_code: 'AF01' },
        { id: 3, username: 'bob', role: 1, aff_code: 'BOB1' },
      ]);
      // The log of user 9: ModelGate would give id 9 to a user created later, so it names no one.
      expect(await target.db.selectFrom('logs').select(['user_id', 'username']).where('id', '=', 42).executeTakeFirstOrThrow()).toEqual({
        user_id: 0,
        username: 'ghost',
      });
      expect(tableOf(taken, 'logs').notes).toContain(
        '1 row(s): user_id named a row of users that is not imported, whose id ModelGate gives another; set to 0',
      );
    } finally {
      await cleanup();
      await source.drop();
    }
  });

  it('--take-source-root is refused, writing nothing, when it cannot tell which root to take', async () => {
    const source = await buildSource('sqlite', 'new-api', 'http://127.0.0.1:9');
    const { storage: target, cleanup } = await createTestStorage('sqlite');
    try {
      await target.db.insertInto('users').values({ id: 1, username: 'root', password: 'x', role: 100 }).execute();
      const { default: Database } = await import('better-sqlite3');
      const extra = new Database(source.from);
      extra.prepare("INSERT INTO users (id, username, password, role, aff_code) VALUES (4, 'root2', 'x', 100, 'R2')").run();
      extra.close();
      const before = await snapshotTarget(target);
      const error = await importFrom(source, target, { takeSourceRoot: true }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ImportRefusedError);
      expect((error as Error).message).toBe(
        '--take-source-root: the source has 2 root users (1 (root), 4 (root2)); it takes one. Nothing was imported.',
      );
      expect(await snapshotTarget(target)).toEqual(before);
    } finally {
      await cleanup();
      await source.drop();
    }
  });
});
