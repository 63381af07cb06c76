import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { tokenKeys } from './keys';

/** DELETE /api/token/:id. */
export const deleteToken = (id: number) => http.delete<null>(`/api/token/${id}/`);

export function useDeleteToken() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteToken, onSettled: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }) });
}
