import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { columnKit, createIndex } from './helpers.js';

/**
 * The Responses API's `previous_response_id` on channels that do not keep responses themselves:
 * each response the gateway produced is kept (per user, bounded, expiring) as the whole
 * conversation up to it, in Responses input items, so a later request on any instance can
 * continue it. `status` 0 = the answer is being produced, 1 = complete.
 */
export function storedResponsesMigration(kind: DatabaseKind) {
  const kit = columnKit(kind);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await kit
        .finish(
          db.schema
            .createTable('stored_responses')
            .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
            .addColumn('user_id', 'integer', (c) => kit.int(c))
            .addColumn('status', 'smallint', (c) => kit.int(c))
            // MySQL's TEXT holds 64 KiB: a conversation needs more.
            .addColumn('items', kind === 'mysql' ? sql`longtext` : 'text', (c) => c.notNull())
            .addColumn('created_at', 'bigint', (c) => kit.int(c))
            .addColumn('expires_at', 'bigint', (c) => kit.int(c)),
        )
        .execute();
      await createIndex(db, 'idx_stored_responses_user', 'stored_responses', ['user_id', 'created_at']);
      await createIndex(db, 'idx_stored_responses_expiry', 'stored_responses', ['expires_at']);
    },
  };
}
