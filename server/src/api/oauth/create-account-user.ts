import { usernameMaxLength } from '@modelgate/shared';
import { randomKey } from '../../lib/crypto.js';
import type { AppContext } from '../../context.js';
import { hashPassword } from '../users/passwords.js';
import { insertInvitedUser } from '../users/insert-invited-user.js';
import { isUniqueViolation } from '../users/user-views.js';
import { providerInfo } from './providers/columns.js';
import { like } from '../../db/like.js';
import type { ProviderAccount } from './providers/types.js';

/** The provider's user name, kept to letters, digits, `_`, `-` and `.`, within the length limit. */
function usernameSeed(account: ProviderAccount): string {
  const cleaned = account.username.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, usernameMaxLength);
  return cleaned || `${account.provider}_`;
}

/** `seed` itself, or `seed` cut short with the lowest number appended that is not yet taken. */
async function freeUsername(ctx: AppContext, seed: string): Promise<string> {
  const stem = seed.slice(0, usernameMaxLength - 4);
  const rows = await ctx.storage.db
    .selectFrom('users')
    .select('username')
    .where(like('username', stem, 'starts'))
    .execute();
  // Compared without case: MySQL's collation makes `Octocat` and `octocat` the same username.
  const taken = new Set(rows.map((row) => row.username.toLowerCase()));
  const isFree = (name: string) => !taken.has(name.toLowerCase());
  if (!seed.endsWith('_') && isFree(seed)) return seed;
  for (let n = 1; n < 10_000; n++) {
    const name = seed.slice(0, usernameMaxLength - String(n).length) + String(n);
    if (isFree(name)) return name;
  }
  return stem + randomKey(4);
}

/**
 * Registers a new user for a third-party account: username from the provider made unique, a
 * random password (sign-in goes through the provider), QuotaForNewUser and invite rewards.
 * Returns null when another request registered this account at the same moment.
 */
export async function createAccountUser(ctx: AppContext, account: ProviderAccount, affCode: string): Promise<number | null> {
  const seed = usernameSeed(account);
  const password = await hashPassword(randomKey(32));
  for (let attempt = 0; attempt < 5; attempt++) {
    const username = await freeUsername(ctx, seed);
    try {
      return await insertInvitedUser(
        ctx,
        {
          username,
          password,
          display_name: (account.displayName || username).slice(0, 64),
          // The provider's address is not taken over: addresses are bound (and kept unique) by mail.
          email: '',
          [providerInfo[account.provider].column]: account.externalId,
        },
        affCode,
      );
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const owner = await ctx.storage.db
        .selectFrom('users')
        .select('id')
        .where(providerInfo[account.provider].column, '=', account.externalId)
        .executeTakeFirst();
      if (owner) return null;
      // The username was taken in between: try the next one.
    }
  }
  throw new Error('could not find a free username');
}
