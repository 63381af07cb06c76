import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openStorage, sqlitePageSize } from '../../src/db/index.js';

describe('SQLite page size', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-page-size-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives a new database 16 KiB pages, in WAL mode', async () => {
    const storage = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: path.join(dir, 'new.db') });
    await migrate(storage);
    expect(storage.sqlite!.pragma('page_size', { simple: true })).toBe(sqlitePageSize);
    expect(storage.sqlite!.pragma('journal_mode', { simple: true })).toBe('wal');
    await storage.close();
  });

  it('keeps the page size of an existing database and its rows', async () => {
    const file = path.join(dir, 'old.db');
    const old = new Database(file);
    old.pragma('page_size = 4096');
    old.exec('CREATE TABLE kept (value TEXT)');
    old.prepare('INSERT INTO kept (value) VALUES (?)').run('still here');
    old.close();
    const storage = openStorage({ kind: 'sqlite', dsn: '', sqlitePath: file });
    await migrate(storage);
    expect(storage.sqlite!.pragma('page_size', { simple: true })).toBe(4096);
    expect(storage.sqlite!.prepare('SELECT value FROM kept').pluck().get()).toBe('still here');
    await storage.close();
  });
});
