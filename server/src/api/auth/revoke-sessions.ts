import type { ExpressionBuilder } from 'kysely';
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
  let query = db.updateTable('users').set((eb) => ({ session_version: nextSessionVersion(eb) })).where('id', '=', userId);
  if (onlyIfVersion !== undefined) query = query.where('session_version', '=', onlyIfVersion);
  await query.execute();
}
