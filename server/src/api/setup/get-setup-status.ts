import { Role } from '../auth/roles.js';
import type { AppContext } from '../../context.js';
import { isSetupDone } from './setup-state.js';

/** Whether first-run setup is done, whether a super admin exists, and the database kind. */
export async function getSetupStatus(ctx: AppContext) {
  const root = await ctx.storage.db
    .selectFrom('users')
    .select('id')
    .where('role', '>=', Role.root)
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return { status: await isSetupDone(ctx), root_init: root !== undefined, database_type: ctx.storage.kind };
}
