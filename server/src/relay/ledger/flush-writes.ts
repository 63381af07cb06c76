import { sql, type Transaction } from 'kysely';
import type { Database, NewLog } from '../../db/schema.js';
import type { CachedToken, CachedUser } from '../pipeline/access-cache.js';
import type { PendingLog } from './log-rows.js';
import type { SetAsideLog } from './usage-writer.js';

/** The usage writer's flush parts: the batch it takes, the savepoint insert and the counter updates. */
export interface FlushBatch {
  users: Array<{ user: CachedUser; quota: number; count: number }>;
  tokens: Array<{ token: CachedToken; quota: number }>;
  channels: Map<number, number>;
  logs: PendingLog[];
  statuses: Map<number, number>;
  shares: BilledShare[];
}

/** A billed subscription share's `funding_holds` row and the log row that bills it. */
export interface BilledShare {
  id: number;
  log: PendingLog | null;
}

/** Quota of set-aside rows per user, token and channel id, left out of their counters. */
export interface AsideQuota {
  users: Map<number, number>;
  tokens: Map<number, number>;
  channels: Map<number, number>;
}
export const noneAside: AsideQuota = { users: new Map(), tokens: new Map(), channels: new Map() };

/**
 * Inserts rows inside a savepoint: null when written, else the database's error (the insert rolled
 * back to the savepoint, the transaction still usable). Throws when even the rollback fails (the
 * connection is gone): then the whole flush fails and is kept.
 */
export async function insertInSavepoint(trx: Transaction<Database>, rows: NewLog[]): Promise<{ error: unknown } | null> {
  await sql`savepoint usage_logs`.execute(trx);
  try {
    await trx.insertInto('logs').values(rows).execute();
  } catch (error) {
    await sql`rollback to savepoint usage_logs`.execute(trx);
    await sql`release savepoint usage_logs`.execute(trx);
    return { error };
  }
  await sql`release savepoint usage_logs`.execute(trx);
  return null;
}

export const safeQuota = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) ? value : 0);

export function sumBy(
  items: SetAsideLog[],
  keyOf: (item: SetAsideLog) => number,
  valueOf: (item: SetAsideLog) => number = (item) => item.quota,
): Map<number, number> {
  const sums = new Map<number, number>();
  for (const item of items) if (valueOf(item) !== 0) sums.set(keyOf(item), (sums.get(keyOf(item)) ?? 0) + valueOf(item));
  return sums;
}

/** The quota of a row its user's wallet paid: all of it, less `other.subscription_quota` when a subscription paid some. */
export function walletQuotaOf(row: NewLog): number {
  const quota = safeQuota(row.quota);
  if (typeof row.other !== 'string' || !row.other.includes('subscription_quota')) return quota;
  try {
    const paid = (JSON.parse(row.other) as { subscription_quota?: unknown }).subscription_quota;
    return quota - Math.min(quota, safeQuota(paid));
  } catch {
    return quota;
  }
}

/** Counter updates through Kysely (PostgreSQL, MySQL, and SQLite's slow flush), minus set-aside quota. */
export async function writeCounters(
  trx: Transaction<Database>,
  users: FlushBatch['users'],
  tokens: FlushBatch['tokens'],
  channels: FlushBatch['channels'],
  statuses: FlushBatch['statuses'],
  now: number,
  aside: AsideQuota,
): Promise<void> {
  for (const { user, count, quota: pending } of users) {
    const quota = pending - (aside.users.get(user.id) ?? 0);
    if (quota === 0 && count === 0) continue;
    await trx
      .updateTable('users')
      .set({ quota: sql`quota - ${quota}`, used_quota: sql`used_quota + ${quota}`, request_count: sql`request_count + ${count}` })
      .where('id', '=', user.id)
      .execute();
  }
  for (const { token, quota: pending } of tokens) {
    const quota = pending - (aside.tokens.get(token.id) ?? 0);
    const update = token.isUnlimited
      ? { used_quota: sql<number>`used_quota + ${quota}`, accessed_time: now }
      : { remain_quota: sql<number>`remain_quota - ${quota}`, used_quota: sql<number>`used_quota + ${quota}`, accessed_time: now };
    await trx.updateTable('tokens').set(update).where('id', '=', token.id).execute();
  }
  for (const [id, pending] of channels) {
    const quota = pending - (aside.channels.get(id) ?? 0);
    if (quota === 0) continue;
    await trx
      .updateTable('channels')
      .set({ used_quota: sql`used_quota + ${quota}` })
      .where('id', '=', id)
      .execute();
  }
  for (const [id, status] of statuses) {
    await trx.updateTable('tokens').set({ status }).where('id', '=', id).execute();
  }
}
