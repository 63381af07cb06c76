import { AppError, forbidden } from '../../lib/errors.js';
import { UserStatus } from '../auth/roles.js';
import type { AppContext } from '../../context.js';
import { registrationClosedMessage } from '../users/register-user.js';
import { sessionUserColumns } from '../users/user-views.js';
import { createAccountUser } from './create-account-user.js';
import { providerInfo } from './providers/columns.js';
import type { ProviderAccount } from './providers/types.js';

export const deletedUserMessage = '该账户已注销，无法登录';
export const bannedUserMessage = '用户已被封禁';

async function findOwner(ctx: AppContext, account: ProviderAccount) {
  return ctx.storage.db
    .selectFrom('users')
    .select([...sessionUserColumns, 'deleted_at', 'session_version'])
    .where(providerInfo[account.provider].column, '=', account.externalId)
    .executeTakeFirst();
}

/**
 * Signs in the user bound to a third-party account, or registers one when registration is open
 * (the provider's sign-in being enabled is its sign-up). A deleted account keeps its binding and
 * is refused, as is a banned one. Returns what the console stores after login and the
 * session_version a new session is signed with.
 */
export async function signInWithAccount(ctx: AppContext, account: ProviderAccount, affCode: string) {
  let owner = await findOwner(ctx, account);
  if (!owner) {
    if (!ctx.options.bool('RegisterEnabled')) throw forbidden(registrationClosedMessage);
    await createAccountUser(ctx, account, affCode);
    owner = await findOwner(ctx, account);
    if (!owner) throw new AppError('internal', '注册失败，请重试');
  }
  if (owner.deleted_at !== null) throw forbidden(deletedUserMessage);
  if (owner.status !== UserStatus.enabled) throw forbidden(bannedUserMessage);
  const { deleted_at: _deleted, session_version: sessionVersion, ...user } = owner;
  return { user, sessionVersion };
}
