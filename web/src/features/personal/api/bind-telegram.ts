import { useMutation, useQueryClient } from '@tanstack/react-query';
import { selfKey } from '../../../lib/api/self';
import { http } from '../../../lib/http';

/** GET /api/oauth/telegram/bind with the login widget's signed fields. */
export const bindTelegram = (fields: Record<string, string>) => http.get<null>('/api/oauth/telegram/bind', { query: fields });

export function useBindTelegram() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: bindTelegram, onSettled: () => queryClient.invalidateQueries({ queryKey: selfKey }) });
}
