import type { BalancesUpdated } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/channel/update_balance: reads every channel's balance; answers how many were updated. */
export const updateAllBalances = () => http.get<BalancesUpdated>('/api/channel/update_balance');

export function useUpdateAllBalances() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateAllBalances, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
