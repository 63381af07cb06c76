import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { userKeys } from './keys';

/** DELETE /api/user/:id/2fa: an admin removes a user's TOTP and recovery codes (a lost device). */
export const resetUserTotp = (id: number) => http.delete<null>(`/api/user/${id}/2fa`);

/** DELETE /api/user/:id/passkey: an admin removes every passkey of a user. */
export const resetUserPasskeys = (id: number) => http.delete<null>(`/api/user/${id}/passkey`);

export function useResetUserTotp() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: resetUserTotp, onSettled: () => queryClient.invalidateQueries({ queryKey: userKeys.all }) });
}

export function useResetUserPasskeys() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: resetUserPasskeys, onSettled: () => queryClient.invalidateQueries({ queryKey: userKeys.all }) });
}
