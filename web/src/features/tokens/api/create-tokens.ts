import type { CreateTokenPayload, Token } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { tokenKeys } from './keys';

/** POST /api/token/: one token, or `count` of them. */
export const createTokens = (payload: CreateTokenPayload) => http.post<Token[]>('/api/token/', payload);

export function useCreateTokens() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createTokens, onSettled: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }) });
}
