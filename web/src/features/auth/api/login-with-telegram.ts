import type { LoginAnswer } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { critical } from './passkey-ceremony';

/** GET /api/oauth/telegram/login with the login widget's signed fields (and the console's lang). */
export const loginWithTelegram = (fields: Record<string, string>) =>
  http.get<LoginAnswer>('/api/oauth/telegram/login', { ...critical, query: fields });

export const useLoginWithTelegram = () => useMutation({ mutationFn: loginWithTelegram });
