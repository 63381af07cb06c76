import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/** The users columns holding a third-party account id; '' means not bound. */
const providerColumns = ['github_id', 'oidc_id', 'wechat_id', 'telegram_id', 'linux_do_id'] as const;

/**
 * One third-party account belongs to one user: a unique index over the bound (non-empty) ids, so
 * two parallel binds of the same account cannot both land. SQLite and PostgreSQL take a partial
 * index; MySQL/MariaDB have none, so a stored generated column (NULL when unbound; NULLs never
 * collide) carries the unique index there.
 */
export function oauthUniqueIdsMigration(kind: DatabaseKind) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of providerColumns) {
        const index = `uq_users_${column}`;
        if (kind === 'mysql') {
          const key = `${column}_key`;
          await sql`ALTER TABLE users ADD COLUMN ${sql.ref(key)} varchar(191) AS (NULLIF(${sql.ref(column)}, '')) STORED`.execute(db);
          await sql`CREATE UNIQUE INDEX ${sql.ref(index)} ON users (${sql.ref(key)})`.execute(db);
        } else {
          await sql`CREATE UNIQUE INDEX ${sql.ref(index)} ON users (${sql.ref(column)}) WHERE ${sql.ref(column)} <> ''`.execute(db);
        }
      }
    },
  };
}
