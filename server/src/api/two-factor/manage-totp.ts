import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../db/index.js';
import { AppError, invalidInput } from '../../lib/errors.js';
import { bumpSessionVersion } from '../auth/revoke-sessions.js';
import { isUniqueViolation } from '../users/user-views.js';
import { notEnabledMessage, wrongCodeMessage } from './check-code.js';
import { newRecoveryCodes, storeRecoveryCodes } from './recovery-codes.js';
import { matchTotpStep, newTotpSecret, totpCodeOf, totpUri } from './totp.js';

export const alreadyEnabledMessage = '两步验证已启用，请先禁用后重新设置';
export const enrolmentExpiredMessage = '请先完成两步验证初始化设置';

/** The secret being enrolled lives in the cache (any instance can finish) until the first code proves it. */
const enrolmentKey = (userId: number) => `2fa:enrol:${userId}`;
const enrolmentTtlSeconds = 600;

async function isTotpEnabled(ctx: AppContext, userId: number): Promise<boolean> {
  return (await ctx.storage.db.selectFrom('two_fas').select('id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/** Enrolment, step 1: a new secret and its otpauth:// URI (the console draws the QR code from it). */
export async function startTotpEnrolment(ctx: AppContext, user: { id: number; username: string }) {
  if (await isTotpEnabled(ctx, user.id)) throw invalidInput(alreadyEnabledMessage);
  const secret = newTotpSecret();
  await ctx.cache.set(enrolmentKey(user.id), secret, enrolmentTtlSeconds);
  const issuer = ctx.options.get('SystemName').trim() || 'ModelGate';
  return { secret, otpauth_url: totpUri(issuer, user.username, secret) };
}

/**
 * Enrolment, step 2: the first code proves the app holds the secret. The secret is stored with that
 * code's step (so the code cannot sign in), ten recovery codes are made (answered once, stored
 * hashed) and every other session of the user ends. Two racing enrolments: the unique index on
 * two_fas.user_id lets one win.
 */
export async function finishTotpEnrolment(ctx: AppContext, userId: number, input: string) {
  const secret = await ctx.cache.get(enrolmentKey(userId));
  if (secret === null) throw invalidInput(enrolmentExpiredMessage);
  if (await isTotpEnabled(ctx, userId)) throw invalidInput(alreadyEnabledMessage);
  const code = totpCodeOf(input);
  const step = code === null ? null : await matchTotpStep(secret, code);
  if (step === null) throw invalidInput(wrongCodeMessage);
  const recoveryCodes = newRecoveryCodes();
  const now = nowSeconds();
  let sessionVersion: number;
  try {
    sessionVersion = await ctx.storage.db.transaction().execute(async (trx) => {
      await trx.insertInto('two_fas').values({ user_id: userId, secret, last_used_step: step, created_at: now, updated_at: now }).execute();
      await storeRecoveryCodes(trx, userId, recoveryCodes);
      return bumpSessionVersion(trx, userId);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('invalid_input', alreadyEnabledMessage);
    throw error;
  }
  await ctx.cache.del(enrolmentKey(userId));
  await ctx.bus.publish('users', String(userId));
  return { recoveryCodes, sessionVersion };
}

/** Removes TOTP and the recovery codes (the caller has checked a code, or is an admin). Ends every session. */
export async function removeTotp(ctx: AppContext, userId: number): Promise<number> {
  const sessionVersion = await ctx.storage.db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('two_fas').where('user_id', '=', userId).executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) throw invalidInput(notEnabledMessage);
    await trx.deleteFrom('two_fa_backup_codes').where('user_id', '=', userId).execute();
    return bumpSessionVersion(trx, userId);
  });
  await ctx.bus.publish('users', String(userId));
  return sessionVersion;
}

/** New recovery codes in place of the old ones (the caller has checked a TOTP code). Ends every other session. */
export async function replaceRecoveryCodes(ctx: AppContext, userId: number) {
  const recoveryCodes = newRecoveryCodes();
  const sessionVersion = await ctx.storage.db.transaction().execute(async (trx) => {
    await storeRecoveryCodes(trx, userId, recoveryCodes);
    return bumpSessionVersion(trx, userId);
  });
  await ctx.bus.publish('users', String(userId));
  return { recoveryCodes, sessionVersion };
}
