import { useMutation } from '@tanstack/react-query';
import { passkeyCeremony } from './passkey-ceremony';

/** POST /api/user/login/2fa/passkey/begin and /finish: the second step with one of the user's passkeys. */
export const verifyLoginPasskey = () => passkeyCeremony('/api/user/login/2fa/passkey/begin', '/api/user/login/2fa/passkey/finish');

export const useVerifyLoginPasskey = () => useMutation({ mutationFn: verifyLoginPasskey });
