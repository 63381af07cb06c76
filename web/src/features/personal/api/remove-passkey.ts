import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** DELETE /api/user/passkey/:id. */
export const removePasskey = (id: number) => http.delete<null>(`/api/user/passkey/${id}`);

export function useRemovePasskey() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: removePasskey, onSettled: () => queryClient.invalidateQueries({ queryKey: twoFactorKeys.all }) });
}
