import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { columnKit, createIndex } from './helpers.js';

/**
 * Second factors (docs/accounts.md, "Two-factor sign-in"), in the new-api family's table names:
 * - `two_fas`: one TOTP secret per user that finished enrolment, with the last accepted RFC 6238
 *   time-step (a code is accepted once: `UPDATE ... WHERE last_used_step < ?`);
 * - `two_fa_backup_codes`: the recovery codes, SHA-256 hashed, each spent once (`is_used`);
 * - `passkey_credentials`: WebAuthn credentials, several per user, looked up by credential id.
 */
export function secondFactorsMigration(kind: DatabaseKind) {
  const kit = columnKit(kind);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await kit
        .finish(
          kit
            .id(db.schema.createTable('two_fas'))
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('secret', 'varchar(64)', (c) => c.notNull())
            .addColumn('last_used_step', 'bigint', (c) => kit.int(c))
            .addColumn('created_at', 'bigint', (c) => kit.int(c))
            .addColumn('updated_at', 'bigint', (c) => kit.int(c)),
        )
        .execute();
      await createIndex(db, 'uq_two_fas_user', 'two_fas', ['user_id'], true);

      await kit
        .finish(
          kit
            .id(db.schema.createTable('two_fa_backup_codes'))
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
            .addColumn('is_used', 'smallint', (c) => kit.int(c))
            .addColumn('used_at', 'bigint', (c) => kit.int(c))
            .addColumn('created_at', 'bigint', (c) => kit.int(c)),
        )
        .execute();
      await createIndex(db, 'uq_two_fa_backup_codes_user_hash', 'two_fa_backup_codes', ['user_id', 'code_hash'], true);

      await kit
        .finish(
          kit
            .id(db.schema.createTable('passkey_credentials'))
            .addColumn('user_id', 'integer', (c) => c.notNull())
            .addColumn('credential_id', 'varchar(512)', (c) => c.notNull())
            .addColumn('public_key', 'text', (c) => c.notNull())
            .addColumn('counter', 'bigint', (c) => kit.int(c))
            .addColumn('transports', 'varchar(255)', (c) => kit.text(c, '[]'))
            .addColumn('device_type', 'varchar(32)', (c) => kit.text(c))
            .addColumn('backed_up', 'smallint', (c) => kit.int(c))
            .addColumn('name', 'varchar(64)', (c) => kit.text(c))
            .addColumn('created_at', 'bigint', (c) => kit.int(c))
            .addColumn('last_used_at', 'bigint', (c) => kit.int(c)),
        )
        .execute();
      await createIndex(db, 'uq_passkey_credentials_credential', 'passkey_credentials', ['credential_id'], true);
      await createIndex(db, 'idx_passkey_credentials_user', 'passkey_credentials', ['user_id']);
    },
  };
}
