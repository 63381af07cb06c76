import { randomKey } from '../../lib/crypto.js';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from './user-views.js';

/**
 * The user's invite code, created once (4 characters, longer after a collision). An empty code (as a
 * migrated row may hold) counts as none.
 */
export async function getAffCode(ctx: AppContext, userId: number): Promise<string> {
  const { db } = ctx.storage;
  for (let length = 4; length <= 12; length++) {
    const existing = await db.selectFrom('users').select('aff_code').where('id', '=', userId).executeTakeFirstOrThrow();
    if (existing.aff_code) return existing.aff_code;
    try {
      await db
        .updateTable('users')
        .set({ aff_code: randomKey(length) })
        .where('id', '=', userId)
        .where((eb) => eb.or([eb('aff_code', 'is', null), eb('aff_code', '=', '')]))
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new Error('could not allocate an invite code');
}
