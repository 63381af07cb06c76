import { useMutation, useQueryClient } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/channel/update_balance/:id: the balance read from the provider, which sits beside data. */
export async function updateBalance(id: number): Promise<number> {
  const answer = await requestEnvelope<null, { balance: number }>(`/api/channel/update_balance/${id}/`);
  return answer.balance ?? 0;
}

export function useUpdateBalance() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateBalance, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
