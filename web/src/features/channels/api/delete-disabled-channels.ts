import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** DELETE /api/channel/disabled: every disabled channel; answers how many. */
export const deleteDisabledChannels = () => http.delete<number>('/api/channel/disabled');

export function useDeleteDisabledChannels() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteDisabledChannels, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
