import type { SessionUser } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { critical } from './passkey-ceremony';

/** POST /api/user/login/2fa: the second step with a TOTP or recovery code; the session cookie comes with the answer. */
export const verifyLoginCode = (code: string) => http.post<SessionUser>('/api/user/login/2fa', { code }, critical);

export const useVerifyLoginCode = () => useMutation({ mutationFn: verifyLoginCode });
