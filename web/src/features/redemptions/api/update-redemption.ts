import type { Redemption, UpdateRedemptionPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { redemptionKeys } from './keys';

/** PUT /api/redemption/: name, quota or expiry of an unused code. */
export const updateRedemption = (payload: UpdateRedemptionPayload) => http.put<Redemption>('/api/redemption/', payload);

export function useUpdateRedemption() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateRedemption, onSettled: () => queryClient.invalidateQueries({ queryKey: redemptionKeys.all }) });
}
