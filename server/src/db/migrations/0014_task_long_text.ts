import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/**
 * On MySQL, a TEXT column holds 65,535 bytes: a Suno answer's clips (`tasks.data`, up to the 4 MB a
 * task proxy's answer may be) could not be stored, and the failed write held up every other task of
 * the poll. The columns a task's upstream fills become LONGTEXT there; PostgreSQL's and SQLite's text
 * has no such limit.
 */
export function taskLongTextMigration(kind: DatabaseKind) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (kind !== 'mysql') return;
      for (const column of ['data', 'fail_reason', 'properties']) {
        await sql`ALTER TABLE tasks MODIFY ${sql.ref(column)} LONGTEXT NOT NULL DEFAULT ('')`.execute(db);
      }
    },
  };
}
