import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { columnKit, createIndex } from './helpers.js';

/**
 * Subscription shares held by calls in flight, so a hard kill cannot lose them (docs/billing.md,
 * "Funding by subscriptions"): `funding_holds` lists what each call took from allowances and has not
 * billed yet (`parts`, the JSON of tasks' `subscription_parts`), with the instance that holds it;
 * `relay_instances` is each instance's heartbeat. Another instance, or the next start, gives back
 * the holds of an instance that stopped beating.
 */
export function fundingHoldsMigration(kind: DatabaseKind) {
  const k = columnKit(kind);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await k
        .finish(
          k
            .id(s.createTable('funding_holds').ifNotExists())
            .addColumn('instance', 'varchar(32)', (c) => k.text(c))
            .addColumn('user_id', 'integer', (c) => k.int(c))
            .addColumn('parts', 'text', (c) => k.text(c))
            .addColumn('created_at', 'bigint', (c) => k.int(c)),
        )
        .execute();
      await createIndex(db, 'idx_funding_holds_instance', 'funding_holds', ['instance']);
      await k
        .finish(
          s
            .createTable('relay_instances')
            .ifNotExists()
            .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
            .addColumn('seen_at', 'bigint', (c) => k.int(c)),
        )
        .execute();
    },
  };
}
