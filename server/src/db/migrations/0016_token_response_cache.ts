import type { Kysely } from 'kysely';

/**
 * A token's response cache (docs/caching.md): answers to identical requests are kept this many
 * seconds and served again without an upstream call (0 = the token does not turn it on; its
 * group's `response_cache.groups` setting then applies).
 */
export function tokenResponseCacheMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tokens')
        .addColumn('response_cache_ttl', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
