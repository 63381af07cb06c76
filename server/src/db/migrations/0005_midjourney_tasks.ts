import { sql, type Kysely } from 'kysely';
import { createIndex } from './helpers.js';

/**
 * What the Midjourney relay needs on `midjourneys`, as 0004 gave `tasks`: the token that paid (a
 * refund gives it back), the upstream's own task id (`mj_id` is the gateway's, the one clients see),
 * the poll lease (`lease_owner`, `lease_until` in unix seconds), and the drawing's channel-side
 * details kept for the Midjourney-Proxy task object (`video_url`, the caller's `notify_hook`).
 * Rows that came before (imported from new-api) used the upstream's id as `mj_id`: it is copied.
 */
export function midjourneyTasksMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('midjourneys')
        .addColumn('token_id', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('midjourneys')
        .addColumn('upstream_id', 'varchar(191)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('midjourneys')
        .addColumn('lease_owner', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('midjourneys')
        .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('midjourneys')
        .addColumn('video_url', 'varchar(2048)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('midjourneys')
        .addColumn('notify_hook', 'varchar(2048)', (c) => c.notNull().defaultTo(''))
        .execute();
      await sql`UPDATE midjourneys SET upstream_id = mj_id WHERE upstream_id = ''`.execute(db);
      await sql`UPDATE tasks SET upstream_id = task_id WHERE upstream_id = ''`.execute(db);
      await createIndex(db, 'idx_midjourneys_status_lease', 'midjourneys', ['status', 'lease_until']);
    },
  };
}
