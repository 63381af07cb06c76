import { forbidden, invalidInput } from '../../lib/errors.js';
import type { AuthUser } from '../auth/guards.js';
import { isRootRole } from '../auth/roles.js';
import { userDeletedMessage } from './user-views.js';

export const higherRoleMessage = '无权更新同权限等级或更高权限等级的用户信息';
export const viewHigherRoleMessage = '无权获取同级或更高等级用户的信息';

/** Admins act only on users of a lower role, and nobody acts on a cancelled account. */
export function assertCanManage(me: AuthUser, target: { role: number; deleted_at: number | null }): void {
  if (target.role >= me.role) throw forbidden(higherRoleMessage);
  if (target.deleted_at !== null) throw invalidInput(userDeletedMessage);
}

/** The user editor: like assertCanManage, but the super admin may also edit their own row. */
export function assertCanEdit(me: AuthUser, target: { id: number; role: number; deleted_at: number | null }): void {
  if (target.id === me.id && isRootRole(me.role)) return;
  assertCanManage(me, target);
}
