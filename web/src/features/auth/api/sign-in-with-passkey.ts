import { useMutation } from '@tanstack/react-query';
import { passkeyCeremony } from './passkey-ceremony';

/** POST /api/user/passkey/login/begin and /finish: sign-in with a passkey instead of the password (the passkey names the user). */
export const signInWithPasskey = () => passkeyCeremony('/api/user/passkey/login/begin', '/api/user/passkey/login/finish');

export const useSignInWithPasskey = () => useMutation({ mutationFn: signInWithPasskey });
