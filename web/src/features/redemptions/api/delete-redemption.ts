import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { redemptionKeys } from './keys';

/** DELETE /api/redemption/:id. */
export const deleteRedemption = (id: number) => http.delete<null>(`/api/redemption/${id}/`);

export function useDeleteRedemption() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteRedemption, onSettled: () => queryClient.invalidateQueries({ queryKey: redemptionKeys.all }) });
}
