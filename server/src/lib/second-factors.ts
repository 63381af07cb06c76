import type { AppContext } from '../context.js';

export interface SecondFactors {
  totp: boolean;
  /** Passkeys count only while the `passkey.enabled` option is on. */
  passkey: boolean;
}

export const passkeysEnabled = (ctx: AppContext): boolean => ctx.options.bool('passkey.enabled');

/** Which second factors a user holds (a TOTP secret, passkeys). */
export async function secondFactorsOf(ctx: AppContext, userId: number): Promise<SecondFactors> {
  const { db } = ctx.storage;
  const [totp, passkey] = await Promise.all([
    db.selectFrom('two_fas').select('id').where('user_id', '=', userId).executeTakeFirst(),
    passkeysEnabled(ctx)
      ? db.selectFrom('passkey_credentials').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst()
      : undefined,
  ]);
  return { totp: totp !== undefined, passkey: passkey !== undefined };
}

export const hasAnyFactor = (factors: SecondFactors): boolean => factors.totp || factors.passkey;

export const secondFactorRequiredMessage = '管理员账户必须先启用两步验证或 Passkey';

/** Whether `TwoFactorRequiredForAdmins` applies to this role and the user has yet to enrol. */
export async function mustEnrolSecondFactor(ctx: AppContext, user: { id: number; role: number }, isAdmin: boolean): Promise<boolean> {
  if (!isAdmin || !ctx.options.bool('TwoFactorRequiredForAdmins')) return false;
  return !hasAnyFactor(await secondFactorsOf(ctx, user.id));
}
