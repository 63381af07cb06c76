import { useMutation, useQueryClient } from '@tanstack/react-query';
import { selfKey } from '../../../lib/api/self';
import { http } from '../../../lib/http';

/** POST /api/user/aff_transfer: invite earnings into the balance. */
export const transferAffQuota = (quota: number) => http.post<null>('/api/user/aff_transfer', { quota });

export function useTransferAffQuota() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: transferAffQuota, onSettled: () => queryClient.invalidateQueries({ queryKey: selfKey }) });
}
