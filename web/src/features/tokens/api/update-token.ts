import type { Token, UpdateTokenPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { tokenKeys } from './keys';

/** PUT /api/token/: the token's editable fields. */
export const updateToken = (payload: UpdateTokenPayload) => http.put<Token>('/api/token/', payload);

export function useUpdateToken() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateToken, onSettled: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }) });
}
