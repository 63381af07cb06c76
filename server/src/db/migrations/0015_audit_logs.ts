import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { columnKit, createIndex } from './helpers.js';

/**
 * The audit trail of administration (docs/audit.md): `audit_logs` holds one row per change an admin
 * or the root made through /api (and admins' sign-ins), each with the hash of the row before it;
 * `audit_head` is one row (id 1) that every append updates first, in the same transaction, so
 * appends are serialised across requests and instances (a row lock on PostgreSQL and MySQL, the
 * writer lock on SQLite) and the chain never forks. It also keeps the newest hash (a removed newest
 * row is detected) and the anchor, the hash before the oldest kept row (moved only by retention).
 * `before` and `after` are LONGTEXT on MySQL: an option's value (a price table) can pass 64 KB.
 */
export function auditLogsMigration(kind: DatabaseKind) {
  const k = columnKit(kind);
  const longText = kind === 'mysql' ? sql`longtext` : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await k
        .finish(
          k
            .id(s.createTable('audit_logs').ifNotExists())
            .addColumn('created_at', 'bigint', (c) => k.int(c))
            .addColumn('user_id', 'integer', (c) => k.int(c))
            .addColumn('username', 'varchar(64)', (c) => k.text(c))
            .addColumn('role', 'integer', (c) => k.int(c))
            .addColumn('ip', 'varchar(64)', (c) => k.text(c))
            .addColumn('method', 'varchar(16)', (c) => k.text(c))
            .addColumn('route', 'varchar(191)', (c) => k.text(c))
            .addColumn('entity', 'varchar(64)', (c) => k.text(c))
            .addColumn('entity_id', 'varchar(191)', (c) => k.text(c))
            .addColumn('action', 'varchar(64)', (c) => k.text(c))
            .addColumn('before', longText, (c) => c.notNull())
            .addColumn('after', longText, (c) => c.notNull())
            .addColumn('status', 'integer', (c) => k.int(c))
            .addColumn('prev_hash', 'varchar(64)', (c) => k.text(c))
            .addColumn('hash', 'varchar(64)', (c) => k.text(c)),
        )
        .execute();
      await createIndex(db, 'idx_audit_logs_created_at', 'audit_logs', ['created_at']);
      await createIndex(db, 'idx_audit_logs_user', 'audit_logs', ['user_id', 'created_at']);
      await createIndex(db, 'idx_audit_logs_username', 'audit_logs', ['username']);
      await createIndex(db, 'idx_audit_logs_entity', 'audit_logs', ['entity', 'created_at']);
      await createIndex(db, 'idx_audit_logs_route', 'audit_logs', ['route']);
      await k
        .finish(
          s
            .createTable('audit_head')
            .ifNotExists()
            .addColumn('id', 'integer', (c) => c.primaryKey())
            .addColumn('seq', 'bigint', (c) => k.int(c))
            .addColumn('last_id', 'bigint', (c) => k.int(c))
            .addColumn('last_hash', 'varchar(64)', (c) => k.text(c))
            .addColumn('anchor_hash', 'varchar(64)', (c) => k.text(c)),
        )
        .execute();
      const head = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM audit_head`.execute(db);
      if (Number(head.rows[0]?.n ?? 0) === 0)
        await sql`INSERT INTO audit_head (id, seq, last_id, last_hash, anchor_hash) VALUES (1, 0, 0, '', '')`.execute(db);
    },
  };
}
