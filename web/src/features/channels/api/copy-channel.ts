import type { CopiedChannel } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** POST /api/channel/copy/:id: a copy named with the _复制 suffix, its balance reset; answers the copy's id. */
export const copyChannel = (id: number) =>
  http.post<CopiedChannel>(`/api/channel/copy/${id}`, {}, { query: { suffix: '_复制', reset_balance: true } });

export function useCopyChannel() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: copyChannel, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
