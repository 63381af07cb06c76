import type { ExpressionBuilder, Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';

/**
 * `session_version + 1` for an UPDATE of users that also ends the user's sessions (a password
 * change, disable, delete): `.set((eb) => ({ ...changes, session_version: nextSessionVersion(eb) }))`.
 */
export const nextSessionVersion = (eb: ExpressionBuilder<Database, 'users'>) => eb('session_version', '+', 1);

/**
 * Ends every session of a user, on every instance (the version lives in the shared database).
 * With `onlyIfVersion`, only while the user still has that version: a logout with an old, already
 * revoked cookie changes nothing.
 */
export async function revokeSessions(db: Db, userId: number, onlyIfVersion?: number): Promise<void> {
  let query = db
    .updateTable('users')
    .set((eb) => ({ session_version: nextSessionVersion(eb) }))
    .where('id', '=', userId);
  if (onlyIfVersion !== undefined) query = query.where('session_version', '=', onlyIfVersion);
  await query.execute();
}

/**
 * Ends every session of the user inside the caller's transaction (a second factor added, changed or
 * removed) and answers the new version, for the browser that made the change to stay signed in.
 */
export async function bumpSessionVersion(trx: Transaction<Database>, userId: number): Promise<number> {
  await trx
    .updateTable('users')
    .set((eb) => ({ session_version: nextSessionVersion(eb) }))
    .where('id', '=', userId)
    .execute();
  const row = await trx.selectFrom('users').select('session_version').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.session_version;
}
