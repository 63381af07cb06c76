import { useMutation, useQueryClient } from '@tanstack/react-query';
import { selfKey } from '../../../lib/api/self';
import { http } from '../../../lib/http';

/** GET /api/oauth/email/bind: binds the address the mailed code was sent to. */
export const bindEmail = ({ email, code }: { email: string; code: string }) =>
  http.get<null>('/api/oauth/email/bind', { query: { email, code } });

export function useBindEmail() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: bindEmail, onSettled: () => queryClient.invalidateQueries({ queryKey: selfKey }) });
}
