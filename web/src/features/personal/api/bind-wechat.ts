import { useMutation, useQueryClient } from '@tanstack/react-query';
import { selfKey } from '../../../lib/api/self';
import { http } from '../../../lib/http';

/** GET /api/oauth/wechat/bind with the code the official account replied with. */
export const bindWeChat = (code: string) => http.get<null>('/api/oauth/wechat/bind', { query: { code } });

export function useBindWeChat() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: bindWeChat, onSettled: () => queryClient.invalidateQueries({ queryKey: selfKey }) });
}
