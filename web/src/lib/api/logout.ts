import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../http';
import { userStore } from '../user-store';

/** GET /api/user/logout: ends the session (and every other session of the user). */
export const logout = () => http.get<null>('/api/user/logout', { silent: true, noAuthRedirect: true });

/** Signs out: whatever the server answers, the stored user and every cached query but the status are dropped. */
export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSettled: () => {
      userStore.clear();
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'status' });
    },
  });
}
