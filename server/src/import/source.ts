import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { parseSqlDsn, type DatabaseKind } from '../config.js';

/** A row as the source driver returns it: column name to raw value. */
// eslint-disable-next-line no-restricted-syntax -- a database row (raw driver values), not decoded JSON
export type SourceRow = Record<string, unknown>;

/** The old gateway's database, opened for reading. Its schema is not ModelGate's, so it is untyped. */
export interface Source {
  db: Kysely<Record<string, SourceRow>>;
  kind: DatabaseKind;
  /** Where it is, without a password, for the report. */
  label: string;
  close(): Promise<void>;
}

const withoutPassword = (dsn: string): string => {
  try {
    const url = new URL(dsn);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable DSN)';
  }
};

/**
 * Opens `--from`: a SQLite file path, a postgres:// or mysql:// URL, or the Go form
 * `user:pass@tcp(host:port)/db` that one-api and new-api read from SQL_DSN.
 */
export function openSource(from: string): Source {
  const trimmed = from.trim();
  if (trimmed === '')
    throw new Error('--from needs a database: a SQLite file path, mysql://…, user:pass@tcp(host:3306)/db or postgres://…');
  if (/\bhost=/.test(trimmed) && /\bdbname=/.test(trimmed)) {
    throw new Error('the key=value PostgreSQL DSN form is not read here; give it as postgres://user:pass@host:5432/db');
  }
  const looksLikeServer = /^(postgres(ql)?|mysql):\/\//i.test(trimmed) || /@tcp\(|^tcp\(/.test(trimmed);
  if (!looksLikeServer) {
    const file = path.resolve(trimmed.replace(/^sqlite:(\/\/)?/i, '').replace(/\?.*$/, ''));
    if (!fs.existsSync(file)) throw new Error(`no SQLite database at ${file}`);
    // Read-only: the import never writes to the old gateway's database.
    const sqlite = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    const db = new Kysely<Record<string, SourceRow>>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { db, kind: 'sqlite', label: file, close: () => db.destroy() };
  }
  const { kind, dsn } = parseSqlDsn(trimmed);
  if (kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: dsn, max: 2 });
    pool.on('error', () => undefined);
    const db = new Kysely<Record<string, SourceRow>>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind, label: withoutPassword(dsn), close: () => db.destroy() };
  }
  const pool = createPool({
    uri: dsn,
    connectionLimit: 2,
    decimalNumbers: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
    timezone: 'Z',
  });
  const db = new Kysely<Record<string, SourceRow>>({ dialect: new MysqlDialect({ pool }) });
  return { db, kind: 'mysql', label: withoutPassword(dsn), close: () => db.destroy() };
}
