import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** POST /api/channel/batch: deletes the chosen channels; answers how many existed. */
export const deleteChannels = (ids: number[]) => http.post<number>('/api/channel/batch', { ids });

export function useDeleteChannels() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteChannels, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
