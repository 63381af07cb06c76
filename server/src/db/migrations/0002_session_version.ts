import type { Kysely } from 'kysely';

/**
 * users.session_version: a session cookie carries the version it was issued under and is valid
 * only while the user row still has it; logout, a password change or reset, disable and delete
 * bump it, which ends every session of that user on every instance sharing the database.
 */
export function sessionVersionMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('session_version', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
