import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { columnKit, createIndex } from './helpers.js';

/**
 * Card payments and subscriptions (docs/payments.md):
 * - `top_ups.gateway_ref`: the payment gateway's own id of the order (a Stripe Checkout Session id;
 *   '' for Epay, whose orders are found by `trade_no`).
 * - `subscription_plans`: what an admin sells: a price per period and the quota each period grants,
 *   for some models or groups (JSON arrays; empty = all).
 * - `subscription_orders`: one purchase through a payment gateway, pending until its webhook.
 * - `user_subscriptions`: a user's subscription with the plan's terms copied at purchase, the current
 *   period and what is left of its allowance. `stripe_subscription_id` is NULL for admin grants (NULLs
 *   never collide in the unique index, on any of the three databases).
 */
export function paymentsSubscriptionsMigration(kind: DatabaseKind) {
  const k = columnKit(kind);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await s
        .alterTable('top_ups')
        .addColumn('gateway_ref', 'varchar(191)', (c) => c.notNull().defaultTo(''))
        .execute();
      await createIndex(db, 'idx_top_ups_gateway_ref', 'top_ups', ['gateway_ref']);

      await k
        .finish(
          k
            .id(s.createTable('subscription_plans').ifNotExists())
            .addColumn('name', 'varchar(64)', (c) => c.notNull())
            .addColumn('description', 'varchar(255)', (c) => k.text(c))
            .addColumn('price', k.double, (c) => k.int(c))
            .addColumn('period_unit', 'varchar(16)', (c) => k.text(c, 'month'))
            .addColumn('period_count', 'integer', (c) => k.int(c, 1))
            .addColumn('quota', 'bigint', (c) => k.int(c))
            .addColumn('models', 'text', (c) => k.text(c, '[]'))
            .addColumn('groups', 'text', (c) => k.text(c, '[]'))
            .addColumn('enabled', 'integer', (c) => k.int(c, 1))
            .addColumn('sort_order', 'integer', (c) => k.int(c))
            .addColumn('created_time', 'bigint', (c) => k.int(c))
            .addColumn('updated_time', 'bigint', (c) => k.int(c)),
        )
        .execute();

      await k
        .finish(
          k
            .id(s.createTable('subscription_orders').ifNotExists())
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('plan_id', 'integer', (c) => c.notNull())
            .addColumn('money', k.double, (c) => k.int(c))
            .addColumn('currency', 'varchar(8)', (c) => k.text(c))
            .addColumn('trade_no', 'varchar(191)', (c) => c.notNull().unique())
            .addColumn('gateway', 'varchar(32)', (c) => k.text(c, 'stripe'))
            .addColumn('gateway_ref', 'varchar(191)', (c) => k.text(c))
            .addColumn('status', 'varchar(32)', (c) => k.text(c, 'pending'))
            .addColumn('create_time', 'bigint', (c) => k.int(c))
            .addColumn('complete_time', 'bigint', (c) => k.int(c)),
        )
        .execute();
      await createIndex(db, 'idx_subscription_orders_user_id', 'subscription_orders', ['user_id']);
      await createIndex(db, 'idx_subscription_orders_gateway_ref', 'subscription_orders', ['gateway_ref']);

      await k
        .finish(
          k
            .id(s.createTable('user_subscriptions').ifNotExists())
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('plan_id', 'integer', (c) => c.notNull())
            .addColumn('plan_name', 'varchar(64)', (c) => k.text(c))
            .addColumn('source', 'varchar(16)', (c) => k.text(c, 'admin'))
            .addColumn('status', 'varchar(16)', (c) => k.text(c, 'active'))
            .addColumn('period_unit', 'varchar(16)', (c) => k.text(c, 'month'))
            .addColumn('period_count', 'integer', (c) => k.int(c, 1))
            .addColumn('period_quota', 'bigint', (c) => k.int(c))
            .addColumn('remaining_quota', 'bigint', (c) => k.int(c))
            .addColumn('models', 'text', (c) => k.text(c, '[]'))
            .addColumn('groups', 'text', (c) => k.text(c, '[]'))
            .addColumn('period_start', 'bigint', (c) => k.int(c))
            .addColumn('period_end', 'bigint', (c) => k.int(c))
            .addColumn('ends_at', 'bigint', (c) => k.int(c))
            .addColumn('cancelled_at', 'bigint', (c) => k.int(c))
            .addColumn('stripe_subscription_id', 'varchar(191)', (c) => c.unique())
            .addColumn('created_time', 'bigint', (c) => k.int(c))
            .addColumn('updated_time', 'bigint', (c) => k.int(c)),
        )
        .execute();
      await createIndex(db, 'idx_user_subscriptions_user', 'user_subscriptions', ['user_id', 'status']);
      await createIndex(db, 'idx_user_subscriptions_period', 'user_subscriptions', ['status', 'period_end']);
    },
  };
}
