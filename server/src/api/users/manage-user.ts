import type { ManageAction } from '@modelgate/shared';
import { nowSeconds } from '../../db/index.js';
import type { UserUpdate } from '../../db/schema.js';
import { forbidden, invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import { nextSessionVersion } from '../auth/revoke-sessions.js';
import { isAdminRole, isRootRole, Role, UserStatus } from '../auth/roles.js';
import type { AppContext } from '../../context.js';
import { assertCanManage } from './user-permissions.js';
import { findManagedUser } from './user-views.js';

export const manageMessages = {
  rootCannotBeDisabled: '无法禁用超级管理员用户',
  rootCannotBeDeleted: '无法删除超级管理员用户',
  rootCannotBeDemoted: '无法降级超级管理员用户',
  onlyRootPromotes: '普通管理员用户无法提升其他用户为管理员',
  alreadyAdmin: '该用户已经是管理员',
  alreadyRegular: '该用户已经是普通用户',
  userChanged: '用户状态已变化，请刷新后重试',
} as const;

const rootRefusals: Partial<Record<ManageAction, string>> = {
  disable: manageMessages.rootCannotBeDisabled,
  delete: manageMessages.rootCannotBeDeleted,
  demote: manageMessages.rootCannotBeDemoted,
};

function changeFor(me: AuthUser, target: { role: number }, action: ManageAction): UserUpdate {
  switch (action) {
    case 'promote':
      if (!isRootRole(me.role)) throw forbidden(manageMessages.onlyRootPromotes);
      if (isAdminRole(target.role)) throw invalidInput(manageMessages.alreadyAdmin);
      return { role: Role.admin };
    case 'demote':
      if (!isAdminRole(target.role)) throw invalidInput(manageMessages.alreadyRegular);
      return { role: Role.user };
    case 'disable':
      return { status: UserStatus.disabled };
    case 'enable':
      return { status: UserStatus.enabled };
    case 'delete':
      return { deleted_at: nowSeconds() };
  }
}

/**
 * promote, demote, disable, enable, delete (a soft, irreversible cancel). The UPDATE repeats the
 * authorization conditions, so a concurrent change cannot slip past them.
 */
export async function manageUser(ctx: AppContext, me: AuthUser, id: number, action: ManageAction) {
  const target = await findManagedUser(ctx.storage.db, id);
  const rootRefusal = rootRefusals[action];
  if (isRootRole(target.role) && rootRefusal) throw forbidden(rootRefusal);
  assertCanManage(me, target);
  const change = changeFor(me, target, action);
  // Disable and delete end the user's sessions (a later enable does not bring old cookies back).
  const endsSessions = action === 'disable' || action === 'delete';
  const result = await ctx.storage.db
    .updateTable('users')
    .set((eb) => (endsSessions ? { ...change, session_version: nextSessionVersion(eb) } : change))
    .where('id', '=', target.id)
    .where('role', '=', target.role)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw invalidInput(manageMessages.userChanged);
  await ctx.bus.publish('users', String(target.id));
  return { status: change.status ?? target.status, role: change.role ?? target.role };
}
