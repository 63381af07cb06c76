import type { LoginAnswer } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { critical } from './passkey-ceremony';

/** GET /api/oauth/wechat: sign in with the code the official account replied with. */
export const loginWithWeChat = (code: string) => http.get<LoginAnswer>('/api/oauth/wechat', { ...critical, query: { code } });

export const useLoginWithWeChat = () => useMutation({ mutationFn: loginWithWeChat });
