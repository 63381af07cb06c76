import type { PasskeyCreationOptions } from '@modelgate/shared';
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** Registers a passkey: options from the server, the browser's authenticator creates it, the server stores it. */
export async function registerPasskey(name: string): Promise<void> {
  const options = await http.post<PasskeyCreationOptions>('/api/user/passkey/register/begin');
  // The declared options are the library's JSON form; its type names the same fields with DOM string unions.
  const response = await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON });
  await http.post<null>('/api/user/passkey/register/finish', { name, response });
}

export function useRegisterPasskey() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: registerPasskey, onSettled: () => queryClient.invalidateQueries({ queryKey: twoFactorKeys.all }) });
}
