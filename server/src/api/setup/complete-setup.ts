import { insertReturningId, nowSeconds } from '../../db/index.js';
import { AppError } from '../../lib/errors.js';
import { Role } from '../auth/roles.js';
import type { AppContext } from '../../context.js';
import { hashPassword } from '../users/passwords.js';
import { isUniqueViolation, sessionUserColumns } from '../users/user-views.js';
import { parseInput } from '../validate.js';
import { getSetupStatus } from './get-setup-status.js';
import { setupModeSchema, setupSchema } from './schemas.js';

export const alreadySetUpMessage = '系统已经初始化完成';

/** The root's starting balance, as new-api gives it, so the operator's first call with their own token works. */
export const rootInitialQuota = 100_000_000;

/**
 * First-run setup: the super admin (only when none exists), the usage mode and the setups row.
 * The setups row has the fixed id 1, so two racing requests cannot both succeed.
 * Answers the new root as sign-in does (its console view and session_version), so the person who
 * set up is signed in; null when a super admin already existed (an import) and none was created.
 */
export async function completeSetup(ctx: AppContext, body: unknown) {
  const status = await getSetupStatus(ctx);
  if (status.status) throw new AppError('conflict', alreadySetUpMessage);
  const mode = parseInput(setupModeSchema, body);
  const account = status.root_init ? null : parseInput(setupSchema, body);
  const password = account ? await hashPassword(account.password) : '';
  const { storage } = ctx;
  let rootId: number | null;
  try {
    rootId = await storage.db.transaction().execute(async (trx) => {
      await trx.insertInto('setups').values({ id: 1, version: ctx.config.version, initialized_at: nowSeconds() }).execute();
      if (account) {
        return insertReturningId({ ...storage, db: trx }, 'users', {
          username: account.username,
          password,
          display_name: 'Root User',
          role: Role.root,
          quota: rootInitialQuota,
          created_time: nowSeconds(),
        });
      }
      return null;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', alreadySetUpMessage);
    throw error;
  }
  await ctx.options.set('SelfUseModeEnabled', String(mode.SelfUseModeEnabled));
  await ctx.options.set('DemoSiteEnabled', String(mode.DemoSiteEnabled));
  if (rootId === null) return null;
  const { session_version: sessionVersion, ...user } = await storage.db
    .selectFrom('users')
    .select([...sessionUserColumns, 'session_version'])
    .where('id', '=', rootId)
    .executeTakeFirstOrThrow();
  return { user, sessionVersion };
}
