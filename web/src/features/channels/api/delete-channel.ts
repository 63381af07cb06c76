import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** DELETE /api/channel/:id. */
export const deleteChannel = (id: number) => http.delete<null>(`/api/channel/${id}/`);

export function useDeleteChannel() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteChannel, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
