import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** POST /api/channel/tag/enabled or /tag/disabled: enables or disables every channel of a tag. */
export const setTagStatus = ({ tag, isEnabled }: { tag: string; isEnabled: boolean }) =>
  http.post<number>(`/api/channel/tag/${isEnabled ? 'enabled' : 'disabled'}`, { tag });

export function useSetTagStatus() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: setTagStatus, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
