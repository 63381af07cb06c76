import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** GET /api/verification: mails a verification code to the address (Turnstile's token when it is on). */
export const sendEmailCode = ({ email, turnstile = '' }: { email: string; turnstile?: string }) =>
  http.get<null>('/api/verification', { query: { email, turnstile } });

export const useSendEmailCode = () => useMutation({ mutationFn: sendEmailCode });
