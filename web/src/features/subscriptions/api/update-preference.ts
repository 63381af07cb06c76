import type { FundingPreference } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** PUT /api/subscription/self/preference: which source pays for calls first. */
export const setPreference = (preference: FundingPreference) =>
  http.put<null>('/api/subscription/self/preference', { billing_preference: preference });

export function useSetPreference() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: setPreference, onSettled: () => queryClient.invalidateQueries({ queryKey: subscriptionKeys.own }) });
}
