import type { AppContext } from '../../context.js';
import { countUnusedRecoveryCodes } from './recovery-codes.js';

/**
 * What the personal settings show: whether TOTP is on and how many recovery codes are left, how
 * many passkeys the user has, whether passkeys are offered, and whether this admin must enrol.
 */
export async function findTwoFactorStatus(ctx: AppContext, userId: number, isRequired: boolean, isPasskeyEnabled: boolean) {
  const { db } = ctx.storage;
  const [totp, passkeys] = await Promise.all([
    db.selectFrom('two_fas').select('created_at').where('user_id', '=', userId).executeTakeFirst(),
    db
      .selectFrom('passkey_credentials')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  const passkeyCount = Number(passkeys.count);
  const hasFactor = totp !== undefined || (isPasskeyEnabled && passkeyCount > 0);
  return {
    enabled: totp !== undefined,
    enabled_at: totp?.created_at ?? 0,
    backup_codes_remaining: totp ? await countUnusedRecoveryCodes(db, userId) : 0,
    passkey_enabled: isPasskeyEnabled,
    passkey_count: passkeyCount,
    required: isRequired && !hasFactor,
  };
}
