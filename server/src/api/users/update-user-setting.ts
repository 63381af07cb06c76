import type { UserSettingInput } from '@modelgate/shared';
import { forbidden, invalidInput } from '../../lib/errors.js';
import { fetchGuardOf, outboundUrlProblem } from '../../lib/outbound-guard.js';
import { isAdminRole } from '../auth/roles.js';
import type { AuthUser } from '../auth/guards.js';
import type { AppContext } from '../../context.js';

export const acceptUnsetAdminOnlyMessage = '仅管理员可以开启未设置价格模型的使用';

/** A user's `setting` JSON as an object; anything else (empty, malformed, not an object) as {}. */
export function parseUserSetting(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Stores notification preferences in users.setting, keeping any other keys already there.
 * accept_unset_model_ratio_model makes unpriced models free, so only an admin may turn it on
 * (the relay also honours it for admins only, so a flag left from before a demotion does nothing).
 */
export async function updateUserSetting(ctx: AppContext, user: AuthUser, input: UserSettingInput): Promise<void> {
  if (input.accept_unset_model_ratio_model && !isAdminRole(user.role)) throw forbidden(acceptUnsetAdminOnlyMessage);
  // The webhook is called by the server: an address it would refuse to call (SSRF protection) is refused here, with the reason.
  const hookProblem = input.webhook_url ? outboundUrlProblem(input.webhook_url, fetchGuardOf(ctx.options)) : null;
  if (hookProblem) throw invalidInput(hookProblem);
  const userId = user.id;
  const { db } = ctx.storage;
  const row = await db.selectFrom('users').select('setting').where('id', '=', userId).executeTakeFirstOrThrow();
  const setting = { ...parseUserSetting(row.setting), ...input };
  await db
    .updateTable('users')
    .set({ setting: JSON.stringify(setting) })
    .where('id', '=', userId)
    .execute();
  await ctx.bus.publish('users', String(userId));
}
