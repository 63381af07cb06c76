import { useMutation, useQueryClient } from '@tanstack/react-query';
import { selfKey } from '../../../lib/api/self';
import { http } from '../../../lib/http';

/** POST /api/user/topup: the quota gained. */
export const redeemCode = (key: string) => http.post<number>('/api/user/topup', { key });

export function useRedeemCode() {
  const queryClient = useQueryClient();
  // The balance refreshes on its own: the mutation settles as soon as the code is redeemed.
  return useMutation({ mutationFn: redeemCode, onSettled: () => void queryClient.invalidateQueries({ queryKey: selfKey }) });
}
