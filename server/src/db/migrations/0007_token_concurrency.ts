import type { Kysely } from 'kysely';

/**
 * A token's concurrency limit: at most this many of its requests in flight at once, across every
 * instance (0 = no limit). Channel limits live in the channel's `setting` JSON.
 */
export function tokenConcurrencyMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tokens')
        .addColumn('max_concurrency', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
