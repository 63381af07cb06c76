import type { Db } from '../../src/db/index.js';
import { maxRequestQuota, maxUsageTokens } from '../../src/relay/billing/usage-count.js';

/**
 * The ledger invariants of docs/billing.md, read back from the database after a flush:
 *   every consume log (type 2) carries non-negative integer quota and token counts within the ceilings
 *   of billing/usage-count.ts (maxRequestQuota, maxUsageTokens);
 *   user:    quota + used_quota == initial quota, used_quota == Σ log quota, request_count == log rows;
 *   token:   used_quota == Σ log quota of the token; a limited token's remain_quota + used_quota == initial;
 *   channel: used_quota == Σ log quota of the channel;
 *   nothing negative or fractional anywhere.
 * Returns the violations as sentences (an empty list is a balanced ledger) and the sums for the output,
 * so a load of thousands of rows reports its first few problems instead of thousands of assertions.
 * (ledger-check.ts's expectLedgerExact asserts the same sums row by row for the small relay tests.)
 */
export interface LedgerExpectation {
  users: Array<{ id: number; initialQuota: number }>;
  /** initialRemain null: an unlimited token. */
  tokens: Array<{ id: number; initialRemain: number | null }>;
}

export interface LedgerReport {
  violations: string[];
  logCount: number;
  logQuota: number;
  logsByToken: Map<number, number>;
  quotaByToken: Map<number, number>;
}

const isCount = (value: number) => Number.isSafeInteger(value) && value >= 0;

function add(map: Map<number, number>, key: number, value: number) {
  map.set(key, (map.get(key) ?? 0) + value);
}

export async function checkLedger(db: Db, expectation: LedgerExpectation): Promise<LedgerReport> {
  const violations: string[] = [];
  const logs = await db
    .selectFrom('logs')
    .select(['id', 'user_id', 'token_id', 'channel_id', 'quota', 'prompt_tokens', 'completion_tokens'])
    .where('type', '=', 2)
    .execute();
  const quotaByUser = new Map<number, number>();
  const logsByUser = new Map<number, number>();
  const quotaByToken = new Map<number, number>();
  const logsByToken = new Map<number, number>();
  const quotaByChannel = new Map<number, number>();
  let logQuota = 0;
  for (const log of logs) {
    const quota = Number(log.quota);
    for (const [name, value, max] of [
      ['quota', quota, maxRequestQuota],
      ['prompt_tokens', Number(log.prompt_tokens), maxUsageTokens],
      ['completion_tokens', Number(log.completion_tokens), maxUsageTokens],
    ] as const) {
      if (!isCount(value) || value > max) violations.push(`log ${log.id}: ${name} ${value} is not an integer in [0, ${max}]`);
    }
    logQuota += quota;
    add(quotaByUser, log.user_id, quota);
    add(logsByUser, log.user_id, 1);
    add(quotaByToken, log.token_id, quota);
    add(logsByToken, log.token_id, 1);
    add(quotaByChannel, log.channel_id, quota);
  }

  for (const { id, initialQuota } of expectation.users) {
    const user = await db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const [quota, used, count] = [Number(user.quota), Number(user.used_quota), Number(user.request_count)];
    if (!isCount(quota) || !isCount(used) || !isCount(count))
      violations.push(`user ${id}: quota ${quota}, used_quota ${used}, request_count ${count} must be non-negative integers`);
    if (quota + used !== initialQuota)
      violations.push(`user ${id}: quota ${quota} + used_quota ${used} = ${quota + used}, not the initial ${initialQuota}`);
    if (used !== (quotaByUser.get(id) ?? 0))
      violations.push(`user ${id}: used_quota ${used} but the consume logs sum to ${quotaByUser.get(id) ?? 0}`);
    if (count !== (logsByUser.get(id) ?? 0))
      violations.push(`user ${id}: request_count ${count} but ${logsByUser.get(id) ?? 0} consume logs`);
  }

  let tokenQuota = 0;
  for (const { id, initialRemain } of expectation.tokens) {
    const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', id).executeTakeFirstOrThrow();
    const [remain, used] = [Number(token.remain_quota), Number(token.used_quota)];
    tokenQuota += used;
    if (!isCount(used)) violations.push(`token ${id}: used_quota ${used} is not a non-negative integer`);
    if (used !== (quotaByToken.get(id) ?? 0))
      violations.push(`token ${id}: used_quota ${used} but its consume logs sum to ${quotaByToken.get(id) ?? 0}`);
    if (initialRemain !== null) {
      if (!isCount(remain)) violations.push(`token ${id}: remain_quota ${remain} is not a non-negative integer`);
      if (remain + used !== initialRemain)
        violations.push(`token ${id}: remain_quota ${remain} + used_quota ${used} = ${remain + used}, not the initial ${initialRemain}`);
    }
  }
  if (tokenQuota !== logQuota) violations.push(`tokens' used_quota sum to ${tokenQuota}, consume logs to ${logQuota}`);

  const channels = await db.selectFrom('channels').select(['id', 'used_quota']).execute();
  let channelQuota = 0;
  for (const channel of channels) {
    const used = Number(channel.used_quota);
    channelQuota += used;
    if (!isCount(used)) violations.push(`channel ${channel.id}: used_quota ${used} is not a non-negative integer`);
    if (used !== (quotaByChannel.get(channel.id) ?? 0))
      violations.push(`channel ${channel.id}: used_quota ${used} but its consume logs sum to ${quotaByChannel.get(channel.id) ?? 0}`);
  }
  if (channelQuota !== logQuota) violations.push(`channels' used_quota sum to ${channelQuota}, consume logs to ${logQuota}`);

  return { violations, logCount: logs.length, logQuota, logsByToken, quotaByToken };
}
