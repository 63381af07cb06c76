import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** POST /api/subscription/self/cancel: stop renewing at the end of the period. */
export const cancelSubscription = (id: number) => http.post<null>('/api/subscription/self/cancel', { id });

export function useCancelSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelSubscription,
    onSettled: () => queryClient.invalidateQueries({ queryKey: subscriptionKeys.own }),
  });
}
