import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../db/index.js';
import { forbidden, invalidInput } from '../../lib/errors.js';
import { UserStatus } from '../auth/roles.js';
import { bannedUserMessage, deletedUserMessage } from '../oauth/sign-in-with-account.js';
import { sessionUserColumns } from '../users/user-views.js';
import { assertChallenge, keepChallenge, type ChallengeScope } from './challenges.js';
import { credentialsOfUser, toWebAuthnCredential, transportsOf } from './credentials.js';
import { relyingPartyOf } from './relying-party.js';
import { userHandleOf } from './register-passkey.js';
import type { authenticationFinishSchema } from './schemas.js';

export const passkeyFailedMessage = 'Passkey 验证失败，请重试';
export const noPasskeyMessage = '该用户尚未绑定 Passkey';

type AuthenticationInput = z.infer<typeof authenticationFinishSchema>;

/**
 * Sign-in options. Without a user (sign-in instead of the password) the browser offers any passkey
 * of this site and user verification (PIN, biometrics) is required: possession plus verification is
 * two factors, so no further step follows. As the second step of a sign-in, the user's own
 * passkeys are listed and verification is preferred (the password was the other factor).
 */
export async function beginPasskeySignIn(ctx: AppContext, scope: ChallengeScope) {
  const rp = relyingPartyOf(ctx);
  const allowCredentials =
    scope.purpose === 'second-step'
      ? (await credentialsOfUser(ctx.storage.db, scope.userId)).map((row) => ({
          id: row.credential_id,
          transports: transportsOf(row.transports),
        }))
      : [];
  if (scope.purpose === 'second-step' && allowCredentials.length === 0) throw invalidInput(noPasskeyMessage);
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials,
    userVerification: scope.purpose === 'sign-in' ? 'required' : 'preferred',
  });
  await keepChallenge(ctx, options.challenge, scope);
  return options;
}

/**
 * Checks an assertion: the challenge (one-use, of this scope), the credential (registered, and the
 * user's own for a second step; the user handle, when sent, must name its owner), the origin and
 * relying-party id of ServerAddress, the signature and the signature counter (which must move on
 * when the authenticator keeps one; a counter going back means a cloned authenticator). Updates the
 * counter atomically and answers the credential's user id.
 */
export async function verifyPasskeyAssertion(ctx: AppContext, scope: ChallengeScope, input: AuthenticationInput): Promise<number> {
  const rp = relyingPartyOf(ctx);
  const { response } = input;
  const challenge = await assertChallenge(ctx, response.response.clientDataJSON, scope);
  const row = await ctx.storage.db
    .selectFrom('passkey_credentials')
    .select(['id', 'user_id', 'credential_id', 'public_key', 'counter', 'transports'])
    .where('credential_id', '=', response.id)
    .executeTakeFirst();
  if (!row || (scope.purpose === 'second-step' && row.user_id !== scope.userId)) throw invalidInput(passkeyFailedMessage);
  const handle = response.response.userHandle;
  if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== new TextDecoder().decode(userHandleOf(row.user_id))) {
    throw invalidInput(passkeyFailedMessage);
  }
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: toWebAuthnCredential(row),
      requireUserVerification: scope.purpose === 'sign-in',
    });
  } catch {
    throw invalidInput(passkeyFailedMessage);
  }
  if (!verification.verified) throw invalidInput(passkeyFailedMessage);
  const updated = await ctx.storage.db
    .updateTable('passkey_credentials')
    .set({ counter: verification.authenticationInfo.newCounter, last_used_at: nowSeconds() })
    .where('id', '=', row.id)
    .where('counter', '=', row.counter)
    .executeTakeFirst();
  // Another sign-in moved the counter between our read and write: only one of two may pass.
  if (Number(updated.numUpdatedRows) !== 1 && verification.authenticationInfo.newCounter !== 0) throw invalidInput(passkeyFailedMessage);
  return row.user_id;
}

/** The user a passwordless passkey sign-in names, refused when banned or deleted. */
export async function passkeyUserOf(ctx: AppContext, userId: number) {
  const row = await ctx.storage.db
    .selectFrom('users')
    .select([...sessionUserColumns, 'deleted_at', 'session_version'])
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!row || row.deleted_at !== null) throw forbidden(deletedUserMessage);
  if (row.status !== UserStatus.enabled) throw forbidden(bannedUserMessage);
  const { deleted_at: _deleted, session_version: sessionVersion, ...user } = row;
  return { user, sessionVersion };
}
