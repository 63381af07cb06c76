import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { sql } from 'kysely';
import { migrate, openStorage } from '../../src/db/index.js';
import { parseImportArgs } from '../../src/import/args.js';
import { setupRootAndLogin } from '../helpers/accounts.js';
import { startTestServer } from '../helpers/test-server.js';
import { createTestDatabase } from '../helpers/test-storage.js';
import { aliceKey, buildSource, upstreamKey, type SourceFixture } from './source-fixture.js';
import { snapshotTarget } from './target-snapshot.js';

const root = path.resolve(import.meta.dirname, '../../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

/** Runs the command `npm run import` runs, with ModelGate's database named as the server reads it. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, ['server/src/import/cli.ts', ...args], { cwd: root, env: { ...process.env, SQL_DSN: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the import command', () => {
  let source: SourceFixture;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    source = await buildSource('sqlite', 'new-api', 'http://127.0.0.1:9');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-import-'));
    env = { SQLITE_PATH: path.join(dir, 'modelgate.db') };
  });
  afterAll(async () => {
    await source.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints the dry-run report without creating the database, then imports with log progress; rows left out exit 3', async () => {
    const dry = await runCli(['--from', source.from, '--dry-run', '--logs'], env);
    // The fixture has rows that cannot be imported (an orphan token, a keyless channel …): the
    // dry run answers with the status the import would have.
    expect(dry.code).toBe(3);
    expect(dry.stdout).toContain('The import is incomplete: 4 row(s) would not be imported (listed above).');
    expect(dry.stdout).toContain('Schema: new-api (before its 2025 schema changes)');
    expect(dry.stdout).toContain('DRY RUN: nothing was written.');
    expect(dry.stdout).toMatch(/tokens\s+4\s+3\s+0\s+1/);
    expect(dry.stdout).toContain('cannot import tokens 12: its user 99 is not imported');
    expect(dry.stdout).toContain('cannot import options QuotaForNewUser');
    expect(dry.stdout).toContain('Options ModelGate does not know (not imported): CheckinEnabled, LegacyFlag');
    for (const secret of [aliceKey, upstreamKey, '$2a$']) expect(dry.stdout + dry.stderr).not.toContain(secret);
    expect(fs.existsSync(env.SQLITE_PATH!)).toBe(false);

    const real = await runCli(['--from', source.from, '--logs', '--batch-size', '1'], env);
    expect(real.code).toBe(3);
    expect(real.stdout).toContain('Imported.');
    expect(real.stdout).toContain('The import is incomplete: 4 row(s) were not imported (listed above).');
    expect(real.stderr).toContain('checking logs: 2/2');
    expect(real.stderr).toContain('\nlogs: 2/2');
    const storage = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: env.SQLITE_PATH! });
    try {
      expect(await storage.db.selectFrom('logs').select('id').execute()).toHaveLength(2);
      expect(await storage.db.selectFrom('tokens').select('key').where('id', '=', 10).executeTakeFirst()).toEqual({ key: aliceKey });
    } finally {
      await storage.close();
    }
  }, 120_000);

  it("refuses bad arguments and a database that is not a gateway's", async () => {
    const bad = await runCli(['--from'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from needs a value');
    expect(() => parseImportArgs(['--dry-run'])).toThrow('--from is required');
    expect(() => parseImportArgs(['--from', 'x.db', '--batch-size', '0'])).toThrow('--batch-size must be a whole number from 1 to 10000');
    expect(() => parseImportArgs(['--from', 'x.db', '--drop-everything'])).toThrow('unknown argument --drop-everything');
    expect(parseImportArgs(['--from=x.db', '--logs', '--tasks'])).toEqual({
      from: 'x.db',
      dryRun: false,
      withLogs: true,
      withTasks: true,
      batchSize: 500,
      takeSourceRoot: false,
      remapIds: false,
    });
    expect(parseImportArgs(['--from', 'x.db', '--take-source-root', '--remap-ids'])).toMatchObject({
      takeSourceRoot: true,
      remapIds: true,
    });
    // A real run, refused before ModelGate's database is opened: no file appears.
    const modelgate = await runCli(['--from', env.SQLITE_PATH!], { SQLITE_PATH: path.join(dir, 'other.db') });
    expect(modelgate.code).toBe(1);
    expect(modelgate.stderr).toContain('is not a one-api or new-api database: it is a ModelGate database');
    expect(fs.existsSync(path.join(dir, 'other.db'))).toBe(false);
  });

  it("refuses to import over the setup page's root (exit 1, nothing written), and --take-source-root resolves it", async () => {
    const database = await createTestDatabase('sqlite');
    const server = await startTestServer({ kind: 'sqlite', database });
    try {
      await setupRootAndLogin(server);
    } finally {
      await server.stop();
    }
    const target = { SQLITE_PATH: database.sqlitePath };
    const storage = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: database.sqlitePath });
    try {
      const before = await snapshotTarget(storage);
      const refused = await runCli(['--from', source.from], target);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain('REFUSED: rows clash with rows already in ModelGate (listed below). Nothing was written.');
      expect(refused.stdout).toMatch(
        /clash: users 1 \(root\): ModelGate's user 1 \(root\) has the same id and username but differs in password, .*quota/,
      );
      expect(refused.stdout).toContain("to resolve: --take-source-root makes the source's root ModelGate's root");
      expect(refused.stdout).toContain('1 row(s) clash with rows already in ModelGate; nothing was written.');
      for (const secret of [aliceKey, '$2a$', '$2b$']) expect(refused.stdout + refused.stderr).not.toContain(secret);
      expect(await snapshotTarget(storage)).toEqual(before);

      const taken = await runCli(['--from', source.from, '--take-source-root'], target);
      expect(taken.code).toBe(3);
      expect(taken.stdout).toContain("note: the source's root (user 1, root) took the place of ModelGate's root (user 1, root)");
      const root = await storage.db.selectFrom('users').select(['id', 'password']).where('username', '=', 'root').executeTakeFirstOrThrow();
      expect(root.id).toBe(1);
      expect(bcrypt.compareSync('root-old-pass', root.password)).toBe(true);
      expect(await storage.db.selectFrom('tokens').select(['id', 'user_id']).orderBy('id').execute()).toEqual([
        { id: 10, user_id: 2 },
        { id: 11, user_id: 2 },
        { id: 13, user_id: 2 },
      ]);
    } finally {
      await storage.close();
      await database.drop();
    }
  }, 120_000);

  it('never exits 0 on a partial import: a row the database refuses exits 3, a failing table exits 1', async () => {
    const database = await createTestDatabase('sqlite');
    const storage = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: database.sqlitePath });
    try {
      // ModelGate's own database refusing rows, with real triggers: one user, then every log (as a full disk would).
      await migrate(storage);
      await sql`CREATE TRIGGER refuse_bob BEFORE INSERT ON users WHEN NEW.username = 'bob' BEGIN SELECT RAISE(ABORT, 'bob refused'); END`.execute(
        storage.db,
      );
      const partial = await runCli(['--from', source.from], { SQLITE_PATH: database.sqlitePath });
      expect(partial.code).toBe(3);
      expect(partial.stdout).toContain('cannot import users 3: the database refused it: bob refused');
      expect(await storage.db.selectFrom('users').select('id').orderBy('id').execute()).toEqual([{ id: 1 }, { id: 2 }]);

      await sql`CREATE TRIGGER refuse_logs BEFORE INSERT ON logs BEGIN SELECT RAISE(ABORT, 'no space left'); END`.execute(storage.db);
      const failed = await runCli(['--from', source.from, '--logs'], { SQLITE_PATH: database.sqlitePath });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('import failed: writing logs failed: no space left');
      expect(await storage.db.selectFrom('logs').select('id').execute()).toHaveLength(0);
    } finally {
      await storage.close();
      await database.drop();
    }
  }, 120_000);
});
