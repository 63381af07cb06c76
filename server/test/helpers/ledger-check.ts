import { expect } from 'vitest';
import type { Storage } from '../../src/db/index.js';
import { maxRequestQuota, maxUsageTokens } from '../../src/relay/billing/usage-count.js';

/**
 * The ledger invariants of docs/billing.md, read from the database: every consume log row holds
 * non-negative integers within the ceilings, and for every user, token and channel the sum of the
 * log quotas equals the used_quota counter (users: quota = start − used). A user's counters hold what
 * their wallet paid: a row's `other.subscription_quota` (a subscription paid it) is not theirs; and
 * each subscription's allowance used (period_quota − remaining_quota) equals what the rows say it
 * paid. A task's refund row (type 6) counts against its user, token, channel and allowances as its
 * `other` says it gave back. Returns the consume log rows.
 */
export async function expectLedgerExact(storage: Storage, startQuota: Map<number, number>): Promise<Array<Record<string, unknown>>> {
  const db = storage.db;
  const rows = await db.selectFrom('logs').selectAll().where('type', 'in', [2, 6]).execute();
  const logs = rows.filter((log) => log.type === 2);
  const byUser = new Map<number, number>();
  const byToken = new Map<number, number>();
  const byChannel = new Map<number, number>();
  const bySubscription = new Map<number, number>();
  const add = (sums: Map<number, number>, id: number, quota: number) => sums.set(id, (sums.get(id) ?? 0) + quota);
  for (const log of rows) {
    const sign = log.type === 6 ? -1 : 1;
    const quota = Number(log.quota);
    for (const [name, value, max] of [
      ['quota', quota, maxRequestQuota],
      ['prompt_tokens', Number(log.prompt_tokens), maxUsageTokens],
      ['completion_tokens', Number(log.completion_tokens), maxUsageTokens],
    ] as const) {
      expect(Number.isSafeInteger(value), `${name} ${value}`).toBe(true);
      expect(value, name).toBeGreaterThanOrEqual(0);
      expect(value, name).toBeLessThanOrEqual(max);
    }
    const funding = fundingOf(String(log.other ?? ''));
    expect(funding.subscription + funding.wallet === quota || !funding.isFunded, `row ${log.id}: subscription + wallet = quota`).toBe(true);
    for (const [id, paid] of funding.parts) add(bySubscription, id, sign * paid);
    add(byUser, log.user_id, sign * (quota - funding.subscription));
    add(byToken, log.token_id, sign * quota);
    add(byChannel, log.channel_id, sign * quota);
  }
  const users = await db.selectFrom('users').select(['id', 'quota', 'used_quota']).execute();
  for (const user of users) {
    const used = byUser.get(user.id) ?? 0;
    expect(Number(user.used_quota), `user ${user.id} used_quota`).toBe(used);
    const start = startQuota.get(user.id);
    if (start !== undefined) expect(Number(user.quota), `user ${user.id} quota`).toBe(start - used);
  }
  const tokens = await db.selectFrom('tokens').select(['id', 'used_quota']).execute();
  for (const token of tokens) expect(Number(token.used_quota), `token ${token.id} used_quota`).toBe(byToken.get(token.id) ?? 0);
  const channels = await db.selectFrom('channels').select(['id', 'used_quota']).execute();
  for (const channel of channels)
    expect(Number(channel.used_quota), `channel ${channel.id} used_quota`).toBe(byChannel.get(channel.id) ?? 0);
  const subscriptions = await db.selectFrom('user_subscriptions').select(['id', 'period_quota', 'remaining_quota']).execute();
  for (const sub of subscriptions) {
    expect(Number(sub.period_quota) - Number(sub.remaining_quota), `subscription ${sub.id} allowance used`).toBe(
      bySubscription.get(sub.id) ?? 0,
    );
  }
  return logs as unknown as Array<Record<string, unknown>>;
}

/** What a row's `other` says a subscription and the wallet paid (relay/ledger/funding-settle.ts). */
function fundingOf(other: string): { isFunded: boolean; subscription: number; wallet: number; parts: Array<[number, number]> } {
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(other) as Record<string, unknown>;
  } catch {
    // not JSON: no funding
  }
  if (typeof parsed.subscription_quota !== 'number') return { isFunded: false, subscription: 0, wallet: 0, parts: [] };
  const subscription = parsed.subscription_quota;
  const listed = Array.isArray(parsed.subscriptions)
    ? (parsed.subscriptions as Array<{ id: number; quota: number }>).map((part) => [part.id, part.quota] as [number, number])
    : [];
  const parts =
    listed.length > 0
      ? listed
      : typeof parsed.subscription_id === 'number'
        ? [[parsed.subscription_id, subscription] as [number, number]]
        : [];
  return { isFunded: true, subscription, wallet: Number(parsed.wallet_quota), parts };
}
