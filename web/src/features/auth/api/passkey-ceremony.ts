import type { PasskeyRequestOptions, SessionUser } from '@modelgate/shared';
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { http } from '../../../lib/http';

/** Sign-in calls: a 401 is an answer to show here, not a reason to leave for the login page. */
export const critical = { noAuthRedirect: true } as const;

/** Runs a WebAuthn sign-in ceremony: options from `begin`, the browser's authenticator, the assertion to `finish`. */
export async function passkeyCeremony(begin: string, finish: string): Promise<SessionUser> {
  const options = await http.post<PasskeyRequestOptions>(begin, undefined, critical);
  // The declared options are the library's JSON form; its type names the same fields with DOM string unions.
  const response = await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
  return http.post<SessionUser>(finish, { response }, critical);
}
