import type { Redemption } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { redemptionKeys } from './keys';

/** PUT /api/redemption/?status_only=true: 1 enables, 2 disables. */
export const setRedemptionStatus = ({ id, status }: { id: number; status: 1 | 2 }) =>
  http.put<Redemption>('/api/redemption/', { id, status }, { query: { status_only: true } });

export function useSetRedemptionStatus() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: setRedemptionStatus, onSettled: () => queryClient.invalidateQueries({ queryKey: redemptionKeys.all }) });
}
