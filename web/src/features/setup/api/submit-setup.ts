import type { SessionUser, SetupPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { statusQueryKey, type PlatformStatus } from '../../../lib/status';

/** POST /api/setup: answers the new root, signed in (the session cookie is set); null when a root already existed (an import). */
export const submitSetup = (payload: SetupPayload) =>
  http.post<SessionUser | null>('/api/setup', payload, { silent: true, noAuthRedirect: true });

export const useSubmitSetup = () => useMutation({ mutationFn: submitSetup });

/**
 * Setup is done: the status says so at once (the app shell then leaves /setup: to /token for the
 * signed-in root, home otherwise) and is read again for the chosen usage mode.
 */
export function useLeaveSetup() {
  const queryClient = useQueryClient();
  return () => {
    queryClient.setQueryData<PlatformStatus>(statusQueryKey, (old) => (old ? { ...old, setup: true } : old));
    void queryClient.invalidateQueries({ queryKey: statusQueryKey });
  };
}
