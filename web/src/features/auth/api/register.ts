import type { RegisterPayload } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/user/register: a new regular account (no session: the person signs in next). */
export const register = ({ payload, turnstile = '' }: { payload: RegisterPayload; turnstile?: string }) =>
  http.post<null>('/api/user/register', payload, { noAuthRedirect: true, query: { turnstile } });

export const useRegister = () => useMutation({ mutationFn: register });
