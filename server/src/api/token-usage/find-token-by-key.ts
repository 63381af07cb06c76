import { TokenStatus, UserStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.js';
import type { TokenRow } from '../../db/schema.js';
import { AppError, unauthenticated } from '../../lib/errors.js';

/** The stored key of `Authorization: Bearer sk-<key>[-<channel>]` (also without Bearer or sk-), or null. */
export function keyOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header
    .trim()
    .replace(/^bearer\s+/i, '')
    .replace(/^sk-/, '');
  const key = value.split('-')[0] ?? '';
  // Keys are letters and digits; anything else (or anything long) names no token, and is not looked up.
  return /^[A-Za-z0-9]{1,128}$/.test(key) ? key : null;
}

/**
 * The token a self-service lookup (GET /api/usage/token, /api/log/token) is authenticated by, as
 * new-api's read-only token auth: the key alone. An expired or exhausted token may still read its own
 * usage; a missing key, an unknown or deleted token and a disabled token are 401, a banned or deleted
 * owner 403 / 401. Read from the database (the relay's counters reach it within BATCH_UPDATE_INTERVAL_MS).
 */
export async function findTokenByKey(ctx: AppContext, authorization: string | undefined): Promise<TokenRow> {
  if (!authorization?.trim()) throw unauthenticated('未提供令牌');
  const key = keyOf(authorization);
  if (!key) throw unauthenticated('无效的令牌');
  const token = await ctx.storage.db
    .selectFrom('tokens')
    .selectAll()
    .where('key', '=', key)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!token) throw unauthenticated('无效的令牌');
  if (token.status === TokenStatus.disabled) throw unauthenticated('该令牌状态不可用');
  const owner = await ctx.storage.db
    .selectFrom('users')
    .select(['status', 'deleted_at'])
    .where('id', '=', token.user_id)
    .executeTakeFirst();
  if (!owner || owner.deleted_at !== null) throw unauthenticated('令牌所属用户不存在');
  if (owner.status !== UserStatus.enabled) throw new AppError('forbidden', '用户已被封禁');
  return token;
}
