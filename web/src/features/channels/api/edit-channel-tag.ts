import type { EditChannelTagPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** PUT /api/channel/tag: edits every channel of a tag; answers how many. */
export const editChannelTag = (payload: EditChannelTagPayload) => http.put<number>('/api/channel/tag', payload);

export function useEditChannelTag() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: editChannelTag, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
