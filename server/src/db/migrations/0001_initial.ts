import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { columnKit, createIndex } from './helpers.js';

/** Every table the product needs, with indexes for each list filter of the spec. */
export function initialMigration(kind: DatabaseKind) {
  const k = columnKit(kind);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await k
        .finish(
          k
            .id(s.createTable('users').ifNotExists())
            .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
            .addColumn('password', 'varchar(255)', (c) => c.notNull())
            .addColumn('display_name', 'varchar(64)', (c) => k.text(c))
            .addColumn('role', 'integer', (c) => k.int(c, 1))
            .addColumn('status', 'integer', (c) => k.int(c, 1))
            .addColumn('email', 'varchar(191)', (c) => k.text(c))
            .addColumn('github_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('oidc_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('wechat_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('telegram_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('linux_do_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('access_token', 'varchar(64)', (c) => c.unique())
            .addColumn('quota', 'bigint', (c) => k.int(c))
            .addColumn('used_quota', 'bigint', (c) => k.int(c))
            .addColumn('request_count', 'bigint', (c) => k.int(c))
            .addColumn('group', 'varchar(64)', (c) => k.text(c, 'default'))
            .addColumn('aff_code', 'varchar(32)', (c) => c.unique())
            .addColumn('aff_count', 'integer', (c) => k.int(c))
            .addColumn('aff_quota', 'bigint', (c) => k.int(c))
            .addColumn('aff_history_quota', 'bigint', (c) => k.int(c))
            .addColumn('inviter_id', 'integer', (c) => k.int(c))
            .addColumn('setting', 'text', (c) => k.text(c))
            .addColumn('remark', 'varchar(255)', (c) => k.text(c))
            .addColumn('created_time', 'bigint', (c) => k.int(c))
            .addColumn('deleted_at', 'bigint'),
        )
        .execute();
      await createIndex(db, 'idx_users_email', 'users', ['email']);
      await createIndex(db, 'idx_users_group', 'users', ['group']);
      await createIndex(db, 'idx_users_inviter_id', 'users', ['inviter_id']);
      await createIndex(db, 'idx_users_github_id', 'users', ['github_id']);
      await createIndex(db, 'idx_users_oidc_id', 'users', ['oidc_id']);
      await createIndex(db, 'idx_users_wechat_id', 'users', ['wechat_id']);
      await createIndex(db, 'idx_users_telegram_id', 'users', ['telegram_id']);
      await createIndex(db, 'idx_users_linux_do_id', 'users', ['linux_do_id']);
      await createIndex(db, 'idx_users_deleted_at', 'users', ['deleted_at']);

      await k
        .finish(
          s
            .createTable('options')
            .ifNotExists()
            .addColumn('key', 'varchar(191)', (c) => c.primaryKey())
            .addColumn('value', 'text', (c) => c.notNull()),
        )
        .execute();

      await k
        .finish(
          k
            .id(s.createTable('setups').ifNotExists())
            .addColumn('version', 'varchar(50)', (c) => c.notNull())
            .addColumn('initialized_at', 'bigint', (c) => c.notNull()),
        )
        .execute();

      await k
        .finish(
          k
            .id(s.createTable('tokens').ifNotExists())
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('key', 'varchar(48)', (c) => c.notNull().unique())
            .addColumn('status', 'integer', (c) => k.int(c, 1))
            .addColumn('name', 'varchar(191)', (c) => k.text(c))
            .addColumn('created_time', 'bigint', (c) => k.int(c))
            .addColumn('accessed_time', 'bigint', (c) => k.int(c))
            .addColumn('expired_time', 'bigint', (c) => k.int(c, -1))
            .addColumn('remain_quota', 'bigint', (c) => k.int(c))
            .addColumn('unlimited_quota', 'integer', (c) => k.int(c))
            .addColumn('model_limits_enabled', 'integer', (c) => k.int(c))
            .addColumn('model_limits', 'text', (c) => k.text(c))
            .addColumn('allow_ips', 'text', (c) => k.text(c))
            .addColumn('used_quota', 'bigint', (c) => k.int(c))
            .addColumn('group', 'varchar(64)', (c) => k.text(c))
            .addColumn('deleted_at', 'bigint'),
        )
        .execute();
      await createIndex(db, 'idx_tokens_user_id', 'tokens', ['user_id']);
      await createIndex(db, 'idx_tokens_name', 'tokens', ['name']);

      await k
        .finish(
          k
            .id(s.createTable('channels').ifNotExists())
            .addColumn('type', 'integer', (c) => k.int(c, 1))
            .addColumn('key', 'text', (c) => k.text(c))
            .addColumn('openai_organization', 'varchar(255)', (c) => k.text(c))
            .addColumn('test_model', 'varchar(255)', (c) => k.text(c))
            .addColumn('status', 'integer', (c) => k.int(c, 1))
            .addColumn('name', 'varchar(191)', (c) => k.text(c))
            .addColumn('weight', 'integer', (c) => k.int(c))
            .addColumn('created_time', 'bigint', (c) => k.int(c))
            .addColumn('test_time', 'bigint', (c) => k.int(c))
            .addColumn('response_time', 'integer', (c) => k.int(c))
            .addColumn('base_url', 'varchar(512)', (c) => k.text(c))
            .addColumn('other', 'text', (c) => k.text(c))
            .addColumn('balance', k.double, (c) => k.int(c))
            .addColumn('balance_updated_time', 'bigint', (c) => k.int(c))
            .addColumn('models', 'text', (c) => k.text(c))
            .addColumn('group', 'varchar(255)', (c) => k.text(c, 'default'))
            .addColumn('used_quota', 'bigint', (c) => k.int(c))
            .addColumn('model_mapping', 'text', (c) => k.text(c))
            .addColumn('status_code_mapping', 'varchar(1024)', (c) => k.text(c))
            .addColumn('priority', 'bigint', (c) => k.int(c))
            .addColumn('auto_ban', 'integer', (c) => k.int(c, 1))
            .addColumn('other_info', 'text', (c) => k.text(c))
            .addColumn('tag', 'varchar(191)', (c) => k.text(c))
            .addColumn('setting', 'text', (c) => k.text(c))
            .addColumn('param_override', 'text', (c) => k.text(c))
            .addColumn('max_input_tokens', 'integer', (c) => k.int(c)),
        )
        .execute();
      await createIndex(db, 'idx_channels_name', 'channels', ['name']);
      await createIndex(db, 'idx_channels_tag', 'channels', ['tag']);
      await createIndex(db, 'idx_channels_status', 'channels', ['status']);

      await k
        .finish(
          s
            .createTable('abilities')
            .ifNotExists()
            .addColumn('group', 'varchar(64)', (c) => c.notNull())
            .addColumn('model', 'varchar(255)', (c) => c.notNull())
            .addColumn('channel_id', 'integer', (c) => c.notNull())
            .addColumn('enabled', 'integer', (c) => k.int(c, 1))
            .addColumn('priority', 'bigint', (c) => k.int(c))
            .addColumn('weight', 'integer', (c) => k.int(c))
            .addColumn('tag', 'varchar(191)', (c) => k.text(c))
            .addPrimaryKeyConstraint('pk_abilities', ['group', 'model', 'channel_id']),
        )
        .execute();
      await createIndex(db, 'idx_abilities_channel_id', 'abilities', ['channel_id']);
      await createIndex(db, 'idx_abilities_tag', 'abilities', ['tag']);

      await k
        .finish(
          k
            .id(s.createTable('redemptions').ifNotExists())
            .addColumn('user_id', 'integer', (c) => k.int(c))
            .addColumn('key', 'varchar(32)', (c) => c.notNull().unique())
            .addColumn('status', 'integer', (c) => k.int(c, 1))
            .addColumn('name', 'varchar(191)', (c) => k.text(c))
            .addColumn('quota', 'bigint', (c) => k.int(c, 100))
            .addColumn('created_time', 'bigint', (c) => k.int(c))
            .addColumn('redeemed_time', 'bigint', (c) => k.int(c))
            .addColumn('used_user_id', 'integer', (c) => k.int(c))
            .addColumn('expired_time', 'bigint', (c) => k.int(c))
            .addColumn('deleted_at', 'bigint'),
        )
        .execute();
      await createIndex(db, 'idx_redemptions_name', 'redemptions', ['name']);

      await k
        .finish(
          k
            .id(s.createTable('logs').ifNotExists())
            .addColumn('user_id', 'integer', (c) => k.int(c))
            .addColumn('created_at', 'bigint', (c) => c.notNull())
            .addColumn('type', 'integer', (c) => c.notNull())
            .addColumn('content', 'text', (c) => k.text(c))
            .addColumn('username', 'varchar(64)', (c) => k.text(c))
            .addColumn('token_name', 'varchar(191)', (c) => k.text(c))
            .addColumn('model_name', 'varchar(191)', (c) => k.text(c))
            .addColumn('quota', 'bigint', (c) => k.int(c))
            .addColumn('prompt_tokens', 'integer', (c) => k.int(c))
            .addColumn('completion_tokens', 'integer', (c) => k.int(c))
            .addColumn('use_time', 'integer', (c) => k.int(c))
            .addColumn('is_stream', 'integer', (c) => k.int(c))
            .addColumn('channel_id', 'integer', (c) => k.int(c))
            .addColumn('token_id', 'integer', (c) => k.int(c))
            .addColumn('group', 'varchar(64)', (c) => k.text(c))
            .addColumn('ip', 'varchar(64)', (c) => k.text(c))
            .addColumn('other', 'text', (c) => k.text(c)),
        )
        .execute();
      await createIndex(db, 'idx_logs_created_at', 'logs', ['created_at']);
      await createIndex(db, 'idx_logs_user_id_created_at', 'logs', ['user_id', 'created_at']);
      await createIndex(db, 'idx_logs_type_created_at', 'logs', ['type', 'created_at']);
      await createIndex(db, 'idx_logs_username', 'logs', ['username']);
      await createIndex(db, 'idx_logs_token_name', 'logs', ['token_name']);
      await createIndex(db, 'idx_logs_model_name', 'logs', ['model_name']);
      await createIndex(db, 'idx_logs_channel_id', 'logs', ['channel_id']);
      await createIndex(db, 'idx_logs_token_id', 'logs', ['token_id']);
      await createIndex(db, 'idx_logs_group', 'logs', ['group']);

      await k
        .finish(
          k
            .id(s.createTable('top_ups').ifNotExists())
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('amount', 'bigint', (c) => k.int(c))
            .addColumn('money', k.double, (c) => k.int(c))
            .addColumn('trade_no', 'varchar(191)', (c) => c.notNull().unique())
            .addColumn('payment_method', 'varchar(32)', (c) => k.text(c))
            .addColumn('create_time', 'bigint', (c) => k.int(c))
            .addColumn('complete_time', 'bigint', (c) => k.int(c))
            .addColumn('status', 'varchar(32)', (c) => k.text(c, 'pending')),
        )
        .execute();
      await createIndex(db, 'idx_top_ups_user_id', 'top_ups', ['user_id']);

      await k
        .finish(
          k
            .id(s.createTable('quota_data').ifNotExists())
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('username', 'varchar(64)', (c) => k.text(c))
            .addColumn('model_name', 'varchar(191)', (c) => k.text(c))
            .addColumn('created_at', 'bigint', (c) => c.notNull())
            .addColumn('token_used', 'bigint', (c) => k.int(c))
            .addColumn('count', 'bigint', (c) => k.int(c))
            .addColumn('quota', 'bigint', (c) => k.int(c)),
        )
        .execute();
      await createIndex(db, 'uq_quota_data_bucket', 'quota_data', ['user_id', 'model_name', 'created_at'], true);
      await createIndex(db, 'idx_quota_data_created_at', 'quota_data', ['created_at']);
      await createIndex(db, 'idx_quota_data_username', 'quota_data', ['username']);

      await k
        .finish(
          k
            .id(s.createTable('midjourneys').ifNotExists())
            .addColumn('code', 'integer', (c) => k.int(c))
            .addColumn('user_id', 'integer', (c) => k.int(c))
            .addColumn('action', 'varchar(40)', (c) => k.text(c))
            .addColumn('mj_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('prompt', 'text', (c) => k.text(c))
            .addColumn('prompt_en', 'text', (c) => k.text(c))
            .addColumn('description', 'text', (c) => k.text(c))
            .addColumn('state', 'text', (c) => k.text(c))
            .addColumn('submit_time', 'bigint', (c) => k.int(c))
            .addColumn('start_time', 'bigint', (c) => k.int(c))
            .addColumn('finish_time', 'bigint', (c) => k.int(c))
            .addColumn('image_url', 'text', (c) => k.text(c))
            .addColumn('status', 'varchar(20)', (c) => k.text(c))
            .addColumn('progress', 'varchar(30)', (c) => k.text(c))
            .addColumn('fail_reason', 'text', (c) => k.text(c))
            .addColumn('channel_id', 'integer', (c) => k.int(c))
            .addColumn('quota', 'bigint', (c) => k.int(c))
            .addColumn('buttons', 'text', (c) => k.text(c))
            .addColumn('properties', 'text', (c) => k.text(c)),
        )
        .execute();
      await createIndex(db, 'idx_midjourneys_mj_id', 'midjourneys', ['mj_id']);
      await createIndex(db, 'idx_midjourneys_user_id', 'midjourneys', ['user_id']);
      await createIndex(db, 'idx_midjourneys_submit_time', 'midjourneys', ['submit_time']);

      await k
        .finish(
          k
            .id(s.createTable('tasks').ifNotExists())
            .addColumn('created_at', 'bigint', (c) => k.int(c))
            .addColumn('updated_at', 'bigint', (c) => k.int(c))
            .addColumn('task_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('platform', 'varchar(30)', (c) => k.text(c))
            .addColumn('user_id', 'integer', (c) => k.int(c))
            .addColumn('channel_id', 'integer', (c) => k.int(c))
            .addColumn('quota', 'bigint', (c) => k.int(c))
            .addColumn('action', 'varchar(40)', (c) => k.text(c))
            .addColumn('status', 'varchar(20)', (c) => k.text(c))
            .addColumn('fail_reason', 'text', (c) => k.text(c))
            .addColumn('submit_time', 'bigint', (c) => k.int(c))
            .addColumn('start_time', 'bigint', (c) => k.int(c))
            .addColumn('finish_time', 'bigint', (c) => k.int(c))
            .addColumn('progress', 'varchar(20)', (c) => k.text(c))
            .addColumn('properties', 'text', (c) => k.text(c))
            .addColumn('data', 'text', (c) => k.text(c)),
        )
        .execute();
      await createIndex(db, 'idx_tasks_task_id', 'tasks', ['task_id']);
      await createIndex(db, 'idx_tasks_user_id', 'tasks', ['user_id']);
      await createIndex(db, 'idx_tasks_submit_time', 'tasks', ['submit_time']);
    },
  };
}
