import { AppError } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../users/user-views.js';
import { providerInfo } from './providers/columns.js';
import type { ProviderAccount } from './providers/types.js';

export const alreadyBoundMessage = (label: string) => `该 ${label} 账户已被绑定`;
export const selfAlreadyBoundMessage = (label: string) => `你已绑定了一个 ${label} 账户，请先解绑`;

/**
 * Binds a third-party account to the signed-in user. One account belongs to one user (a unique
 * index decides between parallel binds), and a user holds one account per provider.
 */
export async function bindAccount(ctx: AppContext, userId: number, account: ProviderAccount): Promise<void> {
  const { column, label } = providerInfo[account.provider];
  const { db } = ctx.storage;
  const owner = await db.selectFrom('users').select('id').where(column, '=', account.externalId).executeTakeFirst();
  if (owner && owner.id !== userId) throw new AppError('conflict', alreadyBoundMessage(label));
  if (owner) return;
  let updated: bigint;
  try {
    const result = await db
      .updateTable('users')
      .set({ [column]: account.externalId })
      .where('id', '=', userId)
      .where(column, '=', '')
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    updated = result.numUpdatedRows;
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', alreadyBoundMessage(label));
    throw error;
  }
  if (updated === 0n) throw new AppError('conflict', selfAlreadyBoundMessage(label));
}
