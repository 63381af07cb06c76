import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.js';
import { parseImportArgs } from '../../src/import/args.js';
import { aliceKey, buildSource, upstreamKey, type SourceFixture } from './source-fixture.js';

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

  it('prints the dry-run report without creating the database, then imports with log progress', async () => {
    const dry = await runCli(['--from', source.from, '--dry-run', '--logs'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Schema: new-api (before its 2025 schema changes)');
    expect(dry.stdout).toContain('DRY RUN: nothing was written.');
    expect(dry.stdout).toMatch(/tokens\s+4\s+3\s+0\s+1/);
    expect(dry.stdout).toContain('cannot import tokens 12: its user 99 is not imported');
    expect(dry.stdout).toContain('cannot import options QuotaForNewUser');
    expect(dry.stdout).toContain('Options ModelGate does not know (not imported): CheckinEnabled, LegacyFlag');
    for (const secret of [aliceKey, upstreamKey, '$2a$']) expect(dry.stdout + dry.stderr).not.toContain(secret);
    expect(fs.existsSync(env.SQLITE_PATH!)).toBe(false);

    const real = await runCli(['--from', source.from, '--logs', '--batch-size', '1'], env);
    expect(real.code).toBe(0);
    expect(real.stdout).toContain('Imported.');
    expect(real.stderr).toContain('logs: 2/2');
    const storage = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: env.SQLITE_PATH! });
    try {
      expect(await storage.db.selectFrom('logs').select('id').execute()).toHaveLength(2);
      expect(await storage.db.selectFrom('tokens').select('key').where('id', '=', 10).executeTakeFirst()).toEqual({ key: aliceKey });
    } finally {
      await storage.close();
    }
  });

  it('refuses bad arguments and a database that is not a gateway\'s', async () => {
    const bad = await runCli(['--from'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from needs a value');
    expect(() => parseImportArgs(['--dry-run'])).toThrow('--from is required');
    expect(() => parseImportArgs(['--from', 'x.db', '--batch-size', '0'])).toThrow('--batch-size must be a whole number from 1 to 10000');
    expect(() => parseImportArgs(['--from', 'x.db', '--drop-everything'])).toThrow('unknown argument --drop-everything');
    expect(parseImportArgs(['--from=x.db', '--logs', '--tasks'])).toEqual({ from: 'x.db', dryRun: false, withLogs: true, withTasks: true, batchSize: 500 });
    // A real run, refused before ModelGate's database is opened: no file appears.
    const modelgate = await runCli(['--from', env.SQLITE_PATH!], { SQLITE_PATH: path.join(dir, 'other.db') });
    expect(modelgate.code).toBe(1);
    expect(modelgate.stderr).toContain('is not a one-api or new-api database: it is a ModelGate database');
    expect(fs.existsSync(path.join(dir, 'other.db'))).toBe(false);
  });
});
