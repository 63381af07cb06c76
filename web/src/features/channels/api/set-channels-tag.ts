import type { SetChannelsTagPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** POST /api/channel/batch/tag: sets the tag of the chosen channels; answers how many. */
export const setChannelsTag = (payload: SetChannelsTagPayload) => http.post<number>('/api/channel/batch/tag', payload);

export function useSetChannelsTag() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: setChannelsTag, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
