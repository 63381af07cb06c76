import type { CreateRedemptionPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { redemptionKeys } from './keys';

/** POST /api/redemption/: the created codes' keys, in creation order. */
export async function createRedemptions(payload: CreateRedemptionPayload): Promise<string[]> {
  return (await http.post<string[]>('/api/redemption/', payload)) ?? [];
}

export function useCreateRedemptions() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createRedemptions, onSettled: () => queryClient.invalidateQueries({ queryKey: redemptionKeys.all }) });
}
