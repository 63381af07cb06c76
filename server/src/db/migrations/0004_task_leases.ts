import type { Kysely } from 'kysely';
import { createIndex } from './helpers.js';

/**
 * What the task relay needs on `tasks`: the token that paid (a refund gives it back), the
 * upstream's own task id (clients only ever see the gateway's), and a poll lease (`lease_owner`,
 * `lease_until` in unix seconds) so that with several instances each task is polled by one at a
 * time and a crashed instance's tasks are picked up once its lease runs out.
 */
export function taskLeasesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tasks')
        .addColumn('token_id', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('upstream_id', 'varchar(191)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('lease_owner', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await createIndex(db, 'idx_tasks_status_lease', 'tasks', ['status', 'lease_until']);
    },
  };
}
