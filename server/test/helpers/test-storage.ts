import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import type { DatabaseKind } from '../../src/config.js';
import { migrate, openStorage, type Storage } from '../../src/db/index.js';

/**
 * The database matrix: SQLite always; PostgreSQL and MySQL when TEST_POSTGRES_DSN / TEST_MYSQL_DSN
 * name a server. Each call gets a fresh, empty database that is dropped on cleanup.
 */
export function storageKinds(): DatabaseKind[] {
  const kinds: DatabaseKind[] = ['sqlite'];
  if (process.env.TEST_POSTGRES_DSN) kinds.push('postgres');
  if (process.env.TEST_MYSQL_DSN) kinds.push('mysql');
  return kinds;
}

export interface TestDatabase {
  kind: DatabaseKind;
  /** DSN of the fresh database ('' for SQLite). */
  dsn: string;
  sqlitePath: string;
  drop(): Promise<void>;
}

const uniqueName = () => `mg_t_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

function withDatabase(dsn: string, name: string): string {
  const url = new URL(dsn);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates a fresh empty database of the given kind (not migrated). */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-'));
    const sqlitePath = path.join(dir, 'test.db');
    return { kind, dsn: '', sqlitePath, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = uniqueName();
  if (kind === 'postgres') {
    const admin = process.env.TEST_POSTGRES_DSN!;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return {
      kind,
      dsn: withDatabase(admin, name),
      sqlitePath: '',
      async drop() {
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const admin = process.env.TEST_MYSQL_DSN!;
  const connection = await createConnection(admin);
  await connection.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await connection.end();
  return {
    kind,
    dsn: withDatabase(admin, name),
    sqlitePath: '',
    async drop() {
      const c = await createConnection(admin);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}

/** A migrated storage on a fresh database; `cleanup` closes it and drops the database. */
export async function createTestStorage(
  kind: DatabaseKind,
): Promise<{ storage: Storage; database: TestDatabase; cleanup(): Promise<void> }> {
  const database = await createTestDatabase(kind);
  const storage = openStorage({ kind, dsn: database.dsn, sqlitePath: database.sqlitePath, poolSize: 5, onIdleError: () => undefined });
  await migrate(storage);
  return {
    storage,
    database,
    async cleanup() {
      await storage.close();
      await database.drop();
    },
  };
}

/** createTestStorage plus a second pool on the same database (another instance of the cluster); cleanup closes both. */
export async function createTestStorages(
  kind: DatabaseKind,
  poolSize = 10,
): Promise<{ storage: Storage; other: Storage; cleanup(): Promise<void> }> {
  const made = await createTestStorage(kind);
  const other = openStorage({ kind, dsn: made.database.dsn, sqlitePath: made.database.sqlitePath, poolSize });
  return {
    storage: made.storage,
    other,
    async cleanup() {
      await other.close();
      await made.cleanup();
    },
  };
}
