import { invalidInput } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { providerInfo } from './providers/columns.js';
import type { ProviderName } from './providers/types.js';

/** Clears the signed-in user's binding of one provider; 400 when nothing is bound. */
export async function unbindAccount(ctx: AppContext, userId: number, provider: ProviderName): Promise<void> {
  const { column, label } = providerInfo[provider];
  const result = await ctx.storage.db
    .updateTable('users')
    .set({ [column]: '' })
    .where('id', '=', userId)
    .where(column, '<>', '')
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw invalidInput(`未绑定 ${label} 账户`);
}
