import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** POST /api/user/2fa/disable with a current or recovery code. */
export const disableTotp = (code: string) => http.post<null>('/api/user/2fa/disable', { code });

export function useDisableTotp() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: disableTotp, onSettled: () => queryClient.invalidateQueries({ queryKey: twoFactorKeys.all }) });
}
