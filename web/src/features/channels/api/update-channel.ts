import type { UpdateChannelPayload, UpdatedChannel } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** PUT /api/channel/: the id and the fields that change (a status-, priority- or weight-only update too). */
export const updateChannel = (payload: UpdateChannelPayload) => http.put<UpdatedChannel>('/api/channel/', payload);

export function useUpdateChannel() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateChannel, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
