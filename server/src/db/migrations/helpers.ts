import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/**
 * Small dialect branches for migrations written once for SQLite, PostgreSQL and MySQL.
 * MySQL rejects a plain literal default on TEXT, so text defaults use the expression form there.
 */
export function columnKit(kind: DatabaseKind) {
  const textDefault = (value: string) => (kind === 'mysql' ? sql`(${sql.lit(value)})` : sql.lit(value));
  return {
    id<T extends string>(table: CreateTableBuilder<T>) {
      return kind === 'postgres'
        ? table.addColumn('id', 'serial', (c) => c.primaryKey())
        : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
    },
    /** A NOT NULL column with a default, the common case. */
    text: (c: ColumnDefinitionBuilder, value = '') => c.notNull().defaultTo(textDefault(value)),
    int: (c: ColumnDefinitionBuilder, value = 0) => c.notNull().defaultTo(value),
    double: 'double precision' as const,
    /** Table options: utf8mb4 on MySQL so names and logs keep any character. */
    finish<T extends string>(table: CreateTableBuilder<T>) {
      return kind === 'mysql' ? table.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`) : table;
    },
  };
}

/** CREATE INDEX that tolerates an index left by an interrupted run (MySQL DDL is not transactional). */
export async function createIndex(db: Kysely<unknown>, name: string, table: string, columns: string[], unique = false): Promise<void> {
  let builder = db.schema.createIndex(name).on(table).columns(columns);
  if (unique) builder = builder.unique();
  try {
    await builder.execute();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!/already exists|Duplicate key name/i.test(message)) throw error;
  }
}
