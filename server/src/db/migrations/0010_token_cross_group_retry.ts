import type { Kysely } from 'kysely';

/**
 * A token's cross-group retry (new-api's `cross_group_retry`): for a token in the `auto` group, failover
 * may go on into the next auto group when every channel of the current one failed (0 = off).
 */
export function tokenCrossGroupRetryMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tokens')
        .addColumn('cross_group_retry', 'smallint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
