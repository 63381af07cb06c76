import type { Token } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { tokenKeys } from './keys';

/** PUT /api/token/?status_only=true: enable (1) or disable (2) a token. */
export const updateTokenStatus = ({ id, status }: { id: number; status: 1 | 2 }) =>
  http.put<Token>('/api/token/', { id, status }, { query: { status_only: true } });

export function useUpdateTokenStatus() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateTokenStatus, onSettled: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }) });
}
