import type { Kysely } from 'kysely';
import { createIndex } from './helpers.js';

/**
 * At most one pending subscription purchase per user (docs/payments.md, "Buying by card"):
 * `subscription_orders.pending_user_id` is the buyer's id while the order is pending and NULL
 * otherwise, under a unique index (NULLs never collide on SQLite, PostgreSQL or MySQL), so two
 * simultaneous subscribe requests cannot both open a payable checkout. Orders pending before this
 * migration keep NULL: they are found by their session, as before.
 */
export function onePendingSubscriptionOrderMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('subscription_orders').addColumn('pending_user_id', 'integer').execute();
      await createIndex(db, 'idx_subscription_orders_pending_user', 'subscription_orders', ['pending_user_id'], true);
    },
  };
}
