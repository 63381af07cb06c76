import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import type { Page } from '../../../lib/http';
import { manageUser, usersQueryKey, type ManageAction, type User } from '../api/users';

/** Runs a manage action and shows the returned status and role in the row. */
export function useManageUser() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: ManageAction }) => manageUser(id, action),
    onSuccess: (result, { id, action }) => {
      queryClient.setQueriesData<Page<User>>({ queryKey: [...usersQueryKey, 'list'] }, (page) =>
        page
          ? {
              ...page,
              items: page.items.map((user) =>
                user.id === id
                  ? { ...user, status: result.status, role: result.role, ...(action === 'delete' ? { DeletedAt: new Date().toISOString() } : {}) }
                  : user,
              ),
            }
          : page,
      );
      showSuccess(t('users.actionDone'));
    },
  });
}
