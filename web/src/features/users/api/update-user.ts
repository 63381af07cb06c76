import type { UpdateUserPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { userKeys } from './keys';

/** PUT /api/user/: the admin editor's save. */
export const updateUser = (payload: UpdateUserPayload) => http.put<null>('/api/user/', payload);

export function useUpdateUser() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateUser, onSettled: () => queryClient.invalidateQueries({ queryKey: userKeys.all }) });
}
