import type { PasskeyNamePayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** PUT /api/user/passkey/:id. */
export const renamePasskey = ({ id, ...payload }: PasskeyNamePayload & { id: number }) =>
  http.put<null>(`/api/user/passkey/${id}`, payload);

export function useRenamePasskey() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: renamePasskey, onSettled: () => queryClient.invalidateQueries({ queryKey: twoFactorKeys.all }) });
}
