import type { RecoveryCodes } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** POST /api/user/2fa/enable: the first code; answers the recovery codes. */
export const enableTotp = (code: string) => http.post<RecoveryCodes>('/api/user/2fa/enable', { code });

export function useEnableTotp() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: enableTotp, onSettled: () => queryClient.invalidateQueries({ queryKey: twoFactorKeys.all }) });
}
