import type { LoginAnswer, LoginPayload } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/user/login, the first step: the user, or (a second factor is set up) what the second step may use. */
export const login = ({ payload, turnstile = '' }: { payload: LoginPayload; turnstile?: string }) =>
  http.post<LoginAnswer>('/api/user/login', payload, { noAuthRedirect: true, query: { turnstile } });

export const useLogin = () => useMutation({ mutationFn: login });
