import type { AdminUser, ManageAction, ManagedUser, Page } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { userKeys } from './keys';

/** POST /api/user/manage: promote, demote, disable, enable or delete; answers the new status and role. */
export const manageUser = (id: number, action: ManageAction) => http.post<ManagedUser>('/api/user/manage', { id, action });

/** Runs a manage action and shows the returned status and role (and a cancellation) in the listed row. */
export function useManageUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: ManageAction }) => manageUser(id, action),
    onSuccess: (result, { id, action }) => {
      queryClient.setQueriesData<Page<AdminUser>>({ queryKey: userKeys.lists() }, (page) =>
        page
          ? {
              ...page,
              items: page.items.map((user) =>
                user.id === id
                  ? {
                      ...user,
                      status: result.status,
                      role: result.role,
                      ...(action === 'delete' ? { deleted_at: Math.floor(Date.now() / 1000) } : {}),
                    }
                  : user,
              ),
            }
          : page,
      );
    },
  });
}
