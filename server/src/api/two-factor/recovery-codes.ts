import { createHash, randomInt } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import { nowSeconds } from '../../db/index.js';
import type { Database } from '../../db/schema.js';

/**
 * Recovery codes: ten per enrolment, each `xxxxx-xxxxx` from 31 letters and digits without look-alikes
 * (about 50 random bits), shown once and stored as SHA-256 of `<user id>:<code>`. They are random, not
 * chosen by people, so a fast hash is enough; the user id keeps one user's hash from matching another's.
 */
export const recoveryCodeCount = 10;
const alphabet = '23456789abcdefghjkmnpqrstuvwxyz';
const half = 5;

export function newRecoveryCodes(): string[] {
  const one = () => Array.from({ length: half * 2 }, () => alphabet[randomInt(alphabet.length)]).join('');
  return Array.from({ length: recoveryCodeCount }, () => {
    const code = one();
    return `${code.slice(0, half)}-${code.slice(half)}`;
  });
}

/** The code as stored: lower case, without spaces and dashes; null when it cannot be a recovery code. */
export function recoveryCodeOf(input: string): string | null {
  const code = input.toLowerCase().replace(/[\s-]+/g, '');
  return code.length === half * 2 && [...code].every((letter) => alphabet.includes(letter)) ? code : null;
}

const hashOf = (userId: number, code: string) => createHash('sha256').update(`${userId}:${code}`).digest('hex');

/** Replaces a user's recovery codes (inside the caller's transaction). */
export async function storeRecoveryCodes(trx: Transaction<Database>, userId: number, codes: string[]): Promise<void> {
  await trx.deleteFrom('two_fa_backup_codes').where('user_id', '=', userId).execute();
  const now = nowSeconds();
  await trx
    .insertInto('two_fa_backup_codes')
    .values(codes.map((code) => ({ user_id: userId, code_hash: hashOf(userId, recoveryCodeOf(code) ?? code), created_at: now })))
    .execute();
}

/** Spends a recovery code: true for exactly one caller, however many race with the same code. */
export async function spendRecoveryCode(db: Db, userId: number, code: string): Promise<boolean> {
  const result = await db
    .updateTable('two_fa_backup_codes')
    .set({ is_used: 1, used_at: nowSeconds() })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hashOf(userId, code))
    .where('is_used', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function countUnusedRecoveryCodes(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('two_fa_backup_codes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('is_used', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
