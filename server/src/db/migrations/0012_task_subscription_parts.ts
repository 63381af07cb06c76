import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { columnKit } from './helpers.js';

/**
 * What subscription allowances paid of a task's price (docs/billing.md, "Funding by subscriptions"):
 * `subscription_parts` on `tasks` and `midjourneys`, a JSON list `[{subscription_id, period_end,
 * quota}]` (`[]`: the wallet paid it all), '' for a user without subscription funding (and every
 * task before this migration). A refund gives each
 * part back to the allowance it came from and the rest (`quota` − the parts) to the wallet.
 */
export function taskSubscriptionPartsMigration(kind: DatabaseKind) {
  const { text } = columnKit(kind);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tasks')
        .addColumn('subscription_parts', 'text', (c) => text(c))
        .execute();
      await db.schema
        .alterTable('midjourneys')
        .addColumn('subscription_parts', 'text', (c) => text(c))
        .execute();
    },
  };
}
