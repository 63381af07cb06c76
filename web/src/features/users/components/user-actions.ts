import { Role, UserStatus, type ManageAction } from '@modelgate/shared';

export interface UserRowAbilities {
  actions: ManageAction[];
  canEdit: boolean;
}

/**
 * What the signed-in user may do to a row, by the server's rules (api/users/manage-user.ts and
 * user-permissions.ts): nobody acts on a cancelled account or on a user of the same or a higher
 * role; only the root promotes; the root may edit its own row.
 */
export function userRowAbilities(
  me: { id: number; role: number },
  user: { id: number; role: number; status: number; isCancelled: boolean },
): UserRowAbilities {
  if (user.isCancelled) return { actions: [], canEdit: false };
  if (user.role >= me.role) return { actions: [], canEdit: user.id === me.id && me.role >= Role.root };
  const actions: ManageAction[] = [];
  if (me.role >= Role.root && user.role < Role.admin) actions.push('promote');
  if (user.role >= Role.admin) actions.push('demote');
  actions.push(user.status === UserStatus.enabled ? 'disable' : 'enable');
  actions.push('delete');
  return { actions, canEdit: true };
}
