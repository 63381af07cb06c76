import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, MysqlDialect, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import type { DatabaseKind } from '../config.js';
import { initialMigration } from './migrations/0001_initial.js';
import { sessionVersionMigration } from './migrations/0002_session_version.js';
import { oauthUniqueIdsMigration } from './migrations/0003_oauth_unique_ids.js';
import { taskLeasesMigration } from './migrations/0004_task_leases.js';
import { midjourneyTasksMigration } from './migrations/0005_midjourney_tasks.js';
import { storedResponsesMigration } from './migrations/0006_stored_responses.js';
import { tokenConcurrencyMigration } from './migrations/0007_token_concurrency.js';
import { paymentsSubscriptionsMigration } from './migrations/0008_payments_subscriptions.js';
import { secondFactorsMigration } from './migrations/0009_second_factors.js';
import { tokenCrossGroupRetryMigration } from './migrations/0010_token_cross_group_retry.js';
import { tokenResponseCacheMigration } from './migrations/0016_token_response_cache.js';
import { onePendingSubscriptionOrderMigration } from './migrations/0011_one_pending_subscription_order.js';
import { taskSubscriptionPartsMigration } from './migrations/0012_task_subscription_parts.js';
import { fundingHoldsMigration } from './migrations/0013_funding_holds.js';
import { taskLongTextMigration } from './migrations/0014_task_long_text.js';
import { auditLogsMigration } from './migrations/0015_audit_logs.js';
import type { Database } from './schema.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';

export type Db = Kysely<Database>;

export interface Storage {
  db: Db;
  kind: DatabaseKind;
  /**
   * SQLite only: the better-sqlite3 handle under `db` (its one connection). For hot bulk writes with
   * cached prepared statements, run only inside a `db.transaction()` callback, which holds that
   * connection and its BEGIN.
   */
  sqlite?: SqliteDatabase.Database;
  /** SQLite file databases opened with `checkpointInBackground`: the worker that checkpoints the log. */
  checkpointer?: SqliteCheckpointer;
  close(): Promise<void>;
}

export interface StorageOptions {
  kind: DatabaseKind;
  dsn: string;
  sqlitePath: string;
  poolSize?: number;
  /** Told about errors of idle pooled connections (they are dropped and replaced). */
  onIdleError?: (error: Error) => void;
  /**
   * SQLite file databases: checkpoint the write-ahead log from a worker thread (db/sqlite-checkpointer.ts)
   * instead of in the commit that crosses SQLite's threshold. The server turns it on; one-shot tools do not.
   */
  checkpointInBackground?: boolean;
  /** Told when a background checkpoint fails or its worker stops. */
  onCheckpointError?: (error: Error) => void;
}

// PostgreSQL returns BIGINT and NUMERIC (SUM results) as strings; every quota and time fits a double.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));

function createDialect(options: StorageOptions, onSqlite: (sqlite: SqliteDatabase.Database) => void) {
  const poolSize = options.poolSize ?? 20;
  if (options.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: options.dsn, max: poolSize });
    // An idle client losing its connection (server restart, admin termination) must not crash the
    // process: the pool drops that client and the next query opens a new connection.
    pool.on('error', (error) => options.onIdleError?.(error));
    return new PostgresDialect({ pool });
  }
  if (options.kind === 'mysql') {
    return new MysqlDialect({
      pool: createPool({
        uri: options.dsn,
        connectionLimit: poolSize,
        decimalNumbers: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
        charset: 'utf8mb4',
        timezone: 'Z',
      }),
    });
  }
  if (options.sqlitePath !== ':memory:') fs.mkdirSync(path.dirname(options.sqlitePath), { recursive: true });
  const sqlite = new SqliteDatabase(options.sqlitePath);
  // A new database gets 16 KiB pages (SQLite's default is 4 KiB): the write-behind flush writes
  // thousands of log rows per transaction, and bigger pages mean fewer pages to write and fewer
  // b-tree splits (docs/performance.md: 4.4 → 3.5 µs CPU per row). An existing file keeps its size.
  if (sqlite.pragma('page_count', { simple: true }) === 0) sqlite.pragma(`page_size = ${sqlitePageSize}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  onSqlite(sqlite);
  return new SqliteDialect({ database: sqlite });
}

/** Page size of a new SQLite database, in bytes. */
export const sqlitePageSize = 16_384;

export function openStorage(options: StorageOptions): Storage {
  let sqlite: SqliteDatabase.Database | undefined;
  const db = new Kysely<Database>({ dialect: createDialect(options, (handle) => (sqlite = handle)) });
  const checkpointer =
    sqlite && options.checkpointInBackground && options.sqlitePath !== ':memory:'
      ? new SqliteCheckpointer(sqlite, options.sqlitePath, options.onCheckpointError ?? (() => undefined))
      : undefined;
  return {
    db,
    kind: options.kind,
    sqlite,
    checkpointer,
    // The server's connection first: the worker's, closed last, checkpoints the log and removes it.
    close: async () => {
      await db.destroy();
      await checkpointer?.close();
    },
  };
}

/** Migrations in order; a landed migration is never edited, a change is a new entry. */
function migrations(kind: DatabaseKind): Record<string, Migration> {
  return {
    '0001_initial': initialMigration(kind),
    '0002_session_version': sessionVersionMigration(),
    '0003_oauth_unique_ids': oauthUniqueIdsMigration(kind),
    '0004_task_leases': taskLeasesMigration(),
    '0005_midjourney_tasks': midjourneyTasksMigration(),
    '0006_stored_responses': storedResponsesMigration(kind),
    '0007_token_concurrency': tokenConcurrencyMigration(),
    '0008_payments_subscriptions': paymentsSubscriptionsMigration(kind),
    '0009_second_factors': secondFactorsMigration(kind),
    '0010_token_cross_group_retry': tokenCrossGroupRetryMigration(),
    '0011_one_pending_subscription_order': onePendingSubscriptionOrderMigration(),
    '0012_task_subscription_parts': taskSubscriptionPartsMigration(kind),
    '0013_funding_holds': fundingHoldsMigration(kind),
    '0014_task_long_text': taskLongTextMigration(kind),
    '0015_audit_logs': auditLogsMigration(kind),
    '0016_token_response_cache': tokenResponseCacheMigration(),
  };
}

/** Runs pending migrations; safe to call at every start-up (already applied ones are skipped). */
export async function migrate(storage: Storage): Promise<void> {
  const migrator = new Migrator({
    db: storage.db,
    provider: { getMigrations: async () => migrations(storage.kind) },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? failed?.migrationName);
    throw new Error(`database migration failed: ${reason}`);
  }
}

/**
 * Inserts one row and returns its id on every dialect (MySQL has no RETURNING; SQLite and MySQL
 * report insertId, PostgreSQL needs RETURNING id).
 */
export async function insertReturningId<T extends keyof Database & string>(
  storage: Storage,
  table: T,
  values: Parameters<ReturnType<Db['insertInto']>['values']>[0],
): Promise<number> {
  const query = storage.db.insertInto(table).values(values as never);
  if (storage.kind === 'postgres') {
    const row = (await query.returning('id' as never).executeTakeFirstOrThrow()) as unknown as { id: number };
    return Number(row.id);
  }
  const result = await query.executeTakeFirstOrThrow();
  return Number(result.insertId);
}

/** Unix time in seconds, the unit of every time column. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
