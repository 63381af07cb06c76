import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { http } from '../../../lib/http';
import type { StoredUser } from '../../../lib/user-store';

/** The first step's answer for a user with a second factor: no session yet, these factors may follow. */
export interface SecondStepRequest {
  require_2fa: true;
  totp: boolean;
  passkey: boolean;
}

export const isSecondStepRequest = (data: unknown): data is SecondStepRequest =>
  typeof data === 'object' && data !== null && (data as { require_2fa?: unknown }).require_2fa === true;

const critical = { noAuthRedirect: true } as const;

/** The second step with a TOTP or recovery code; the session cookie comes with the answer. */
export const verifyLoginCode = (code: string) => http.post<StoredUser>('/api/user/login/2fa', { code }, critical);

/** Runs a WebAuthn sign-in ceremony: options from `begin`, the browser's authenticator, the assertion to `finish`. */
async function passkeyCeremony(begin: string, finish: string): Promise<StoredUser> {
  const optionsJSON = await http.post<PublicKeyCredentialRequestOptionsJSON>(begin, undefined, critical);
  const response = await startAuthentication({ optionsJSON });
  return http.post<StoredUser>(finish, { response }, critical);
}

/** The second step with one of the user's passkeys. */
export const verifyLoginPasskey = () => passkeyCeremony('/api/user/login/2fa/passkey/begin', '/api/user/login/2fa/passkey/finish');

/** Sign-in with a passkey instead of the password (the passkey names the user). */
export const signInWithPasskey = () => passkeyCeremony('/api/user/passkey/login/begin', '/api/user/passkey/login/finish');
