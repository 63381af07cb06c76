import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { settingsKeys } from './keys';

/** DELETE /api/log/?target_timestamp=: removes logs older than the time; answers the count. */
export const deleteLogsBefore = (targetTimestamp: number) =>
  http.delete<number>('/api/log/', { query: { target_timestamp: targetTimestamp } });

export function useDeleteLogsBefore() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteLogsBefore, onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.logs }) });
}
