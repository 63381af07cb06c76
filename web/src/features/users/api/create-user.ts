import type { CreateUserPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { userKeys } from './keys';

/** POST /api/user/: answers the new account's id. */
export const createUser = (payload: CreateUserPayload) => http.post<{ id: number }>('/api/user/', payload);

export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createUser, onSettled: () => queryClient.invalidateQueries({ queryKey: userKeys.all }) });
}
