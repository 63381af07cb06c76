import type { RecoveryCodes } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** POST /api/user/2fa/backup_codes with a current TOTP code: new recovery codes. */
export const regenerateRecoveryCodes = (code: string) => http.post<RecoveryCodes>('/api/user/2fa/backup_codes', { code });

export function useRegenerateRecoveryCodes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: regenerateRecoveryCodes,
    onSettled: () => queryClient.invalidateQueries({ queryKey: twoFactorKeys.all }),
  });
}
