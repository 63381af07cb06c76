import { useMutation, useQueryClient } from '@tanstack/react-query';
import { selfKey } from '../../../lib/api/self';
import { http } from '../../../lib/http';

/** Providers whose binding the user can remove from /personal. */
export type BoundProvider = 'github' | 'oidc' | 'linuxdo' | 'wechat' | 'telegram';

/** DELETE /api/oauth/:provider/bind. */
export const unbindAccount = (provider: BoundProvider) => http.delete<null>(`/api/oauth/${provider}/bind`);

export function useUnbindAccount() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: unbindAccount, onSettled: () => queryClient.invalidateQueries({ queryKey: selfKey }) });
}
