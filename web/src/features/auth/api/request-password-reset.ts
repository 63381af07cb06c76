import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** GET /api/reset_password: mails a one-use reset link to the address (the same answer for an unknown one). */
export const requestPasswordReset = ({ email, turnstile = '' }: { email: string; turnstile?: string }) =>
  http.get<null>('/api/reset_password', { noAuthRedirect: true, query: { email, turnstile } });

export const useRequestPasswordReset = () => useMutation({ mutationFn: requestPasswordReset });
