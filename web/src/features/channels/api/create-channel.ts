import type { CreateChannelPayload, CreatedChannels } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** POST /api/channel/: the new ids and the channel's models without a price. */
export const createChannel = (payload: CreateChannelPayload) => http.post<CreatedChannels>('/api/channel/', payload);

export function useCreateChannel() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createChannel, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
