import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** POST /api/channel/fix: rebuilds the abilities from the channel rows; answers how many channels. */
export const fixChannels = () => http.post<number>('/api/channel/fix');

export function useFixChannels() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: fixChannels, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
