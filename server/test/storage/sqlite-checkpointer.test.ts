import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openStorage, type Storage } from '../../src/db/index.js';
import { SqliteCheckpointer } from '../../src/db/sqlite-checkpointer.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

/**
 * SQLite's WAL checkpoints run in a worker thread (db/sqlite-checkpointer.ts): the server's connection
 * never checkpoints in a commit, the worker's passes copy the log into the database file so SQLite
 * starts the log over, and a worker that stops hands checkpoints back to the server's connection.
 */
describe('SQLite checkpoints off the event loop', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-checkpoint-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const pad = 'x'.repeat(2000);

  /** One transaction of `rows` rows of about 2 KB: about 120 log pages of 16 KiB per 1,000 rows. */
  function writeRows(storage: Storage, rows: number, from: number): void {
    const insert = storage.sqlite!.prepare('INSERT INTO filler (n, pad) VALUES (?, ?)');
    storage.sqlite!.transaction(() => {
      for (let i = 0; i < rows; i += 1) insert.run(from + i, pad);
    })();
  }

  async function until<T>(read: () => T | null | undefined, what: string, timeoutMs = 8000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = read();
      if (value !== null && value !== undefined) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function openFiller(
    file: string,
    intervalMs?: number,
  ): Promise<{ storage: Storage; checkpointer: SqliteCheckpointer; errors: Error[] }> {
    const storage = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: file });
    await migrate(storage);
    storage.sqlite!.exec('CREATE TABLE IF NOT EXISTS filler (n INTEGER, pad TEXT)');
    const errors: Error[] = [];
    const checkpointer = new SqliteCheckpointer(storage.sqlite!, file, (error) => errors.push(error), intervalMs);
    return { storage, checkpointer, errors };
  }

  it('copies the log in the worker: the server connection never checkpoints, and the log starts over', async () => {
    const file = path.join(dir, 'passes.db');
    const { storage, checkpointer, errors } = await openFiller(file, 50);
    expect(storage.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(storage.sqlite!.pragma('journal_size_limit', { simple: true })).toBe(64 * 1024 * 1024);
    // Past SQLite's 1,000-page threshold: the default would have checkpointed in one of these commits.
    for (let i = 0; i < 12; i += 1) writeRows(storage, 1000, i * 1000);
    const full = await until(
      () =>
        checkpointer.lastPass &&
        checkpointer.lastPass.logFrames > 1000 &&
        checkpointer.lastPass.checkpointedFrames === checkpointer.lastPass.logFrames
          ? checkpointer.lastPass
          : null,
      'a pass that copied the whole log',
    );
    // The log was all copied, so the next commit writes it from its start again.
    writeRows(storage, 100, 12_000);
    await until(() => (checkpointer.lastPass && checkpointer.lastPass.logFrames < full.logFrames ? true : null), 'the log to start over');
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(12_100);
    reader.close();
    expect(errors).toEqual([]);
    await checkpointer.close();
    await storage.close();
  });

  it('hands checkpoints back to the server connection when the worker dies or cannot open the file', async () => {
    const { storage, checkpointer, errors } = await openFiller(path.join(dir, 'dies.db'));
    await checkpointer.kill();
    expect(storage.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(errors.map((error) => error.message)).toEqual([
      'SQLite checkpoint worker stopped; checkpoints run on the server connection again',
    ]);

    storage.sqlite!.pragma('wal_autocheckpoint = 0');
    const missing: Error[] = [];
    const orphan = new SqliteCheckpointer(storage.sqlite!, path.join(dir, 'no-such-dir', 'x.db'), (error) => missing.push(error));
    await until(() => (missing.length >= 2 ? true : null), 'the failed worker to be reported');
    expect(missing[0]!.message).toMatch(/unable to open|directory does not exist/i);
    expect(storage.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await orphan.close();
    await storage.close();
  });

  it('is the server storage: closing it leaves no log behind and keeps every row', async () => {
    const file = path.join(dir, 'server.db');
    const config = loadConfig({
      SQLITE_PATH: file,
      SESSION_SECRET: 'checkpoint-test',
      PORT: '0',
      LOG_LEVEL: 'silent',
      WEB_DIST_DIR: '/nonexistent',
    });
    const server = await startServer(config, { listen: false });
    const { storage } = server.ctx;
    expect(storage.checkpointer).toBeInstanceOf(SqliteCheckpointer);
    expect(storage.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    storage.sqlite!.exec('CREATE TABLE filler (n INTEGER, pad TEXT)');
    writeRows(storage, 3000, 0);
    await server.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(3000);
    reader.close();
  });
});
