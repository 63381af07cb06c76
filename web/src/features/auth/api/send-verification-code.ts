import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** GET /api/verification: mails a registration code to the address. */
export const sendVerificationCode = ({ email, turnstile = '' }: { email: string; turnstile?: string }) =>
  http.get<null>('/api/verification', { noAuthRedirect: true, query: { email, turnstile } });

export const useSendVerificationCode = () => useMutation({ mutationFn: sendVerificationCode });
