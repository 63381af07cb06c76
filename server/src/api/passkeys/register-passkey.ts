import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../db/index.js';
import { invalidInput } from '../../lib/errors.js';
import { bumpSessionVersion } from '../auth/revoke-sessions.js';
import { isUniqueViolation } from '../users/user-views.js';
import { assertChallenge, keepChallenge } from './challenges.js';
import { credentialsOfUser, maxPasskeysPerUser, transportsOf } from './credentials.js';
import { relyingPartyOf } from './relying-party.js';
import type { registerFinishSchema } from './schemas.js';

export const registrationFailedMessage = 'Passkey 注册失败，请重试';
export const alreadyRegisteredMessage = '该 Passkey 已注册';
export const tooManyPasskeysMessage = `最多可注册 ${maxPasskeysPerUser} 个 Passkey`;

/** The WebAuthn user handle: the user id's digits, so a discoverable credential names its owner. */
export const userHandleOf = (userId: number): Uint8Array<ArrayBuffer> => new TextEncoder().encode(String(userId));

/**
 * Registration, step 1: creation options for navigator.credentials.create(). The user's passkeys
 * are excluded (one authenticator registers once); a discoverable credential is asked for, so it
 * can sign in without a username.
 */
export async function beginPasskeyRegistration(ctx: AppContext, user: { id: number; username: string; display_name: string }) {
  const rp = relyingPartyOf(ctx);
  const existing = await credentialsOfUser(ctx.storage.db, user.id);
  if (existing.length >= maxPasskeysPerUser) throw invalidInput(tooManyPasskeysMessage);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userID: userHandleOf(user.id),
    userDisplayName: user.display_name || user.username,
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: transportsOf(row.transports) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await keepChallenge(ctx, options.challenge, { purpose: 'register', userId: user.id });
  return options;
}

/**
 * Registration, step 2: the authenticator's answer is checked against the challenge (one-use), the
 * origin and the relying-party id of ServerAddress; the credential is stored and every other
 * session of the user ends (a factor was added). Answers the new session_version.
 */
export async function finishPasskeyRegistration(ctx: AppContext, userId: number, input: z.infer<typeof registerFinishSchema>) {
  const rp = relyingPartyOf(ctx);
  const challenge = await assertChallenge(ctx, input.response.response.clientDataJSON, { purpose: 'register', userId });
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch {
    throw invalidInput(registrationFailedMessage);
  }
  if (!verification.verified) throw invalidInput(registrationFailedMessage);
  const info = verification.registrationInfo;
  if (info.credential.id.length > 512) throw invalidInput(registrationFailedMessage);
  const count = (await credentialsOfUser(ctx.storage.db, userId)).length;
  if (count >= maxPasskeysPerUser) throw invalidInput(tooManyPasskeysMessage);
  const now = nowSeconds();
  try {
    const sessionVersion = await ctx.storage.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('passkey_credentials')
        .values({
          user_id: userId,
          credential_id: info.credential.id,
          public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
          counter: info.credential.counter,
          transports: JSON.stringify((input.response.response.transports ?? []).slice(0, 10)),
          device_type: info.credentialDeviceType,
          backed_up: info.credentialBackedUp ? 1 : 0,
          name: input.name || `Passkey ${count + 1}`,
          created_at: now,
        })
        .execute();
      return bumpSessionVersion(trx, userId);
    });
    await ctx.bus.publish('users', String(userId));
    return sessionVersion;
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidInput(alreadyRegisteredMessage);
    throw error;
  }
}
