import { defaultFundingPreference, fundingPreferences, type FundingPreference } from '@modelgate/shared';
import type { Db } from '../db/index.js';
import { covers } from './coverage.js';

/**
 * Funding of a call from a user's subscription allowances and wallet (docs/payments.md,
 * "Funding"). Storage-level: it takes and returns subscription quota with conditional UPDATEs,
 * exact under concurrency on SQLite, PostgreSQL and MySQL, and leaves the wallet to the caller
 * (the relay holds and settles wallet quota in memory and writes it behind): it says how much the
 * wallet must pay.
 */

export interface FundingRequest {
  userId: number;
  /** The model and group of the call: a subscription pays only for what its plan covers. */
  model: string;
  group: string;
  /** Quota to fund: a non-negative safe integer. */
  amount: number;
  /**
   * What the wallet can still pay (its spendable quota). Used by `wallet_first`: the wallet pays up
   * to this, the subscription the rest. Absent: the wallet can pay everything.
   */
  walletAvailable?: number;
  /** The user's preference when the caller knows it; read from `users.setting` otherwise. */
  preference?: FundingPreference;
  /**
   * `subscription_only` when the allowance falls short: false (default) takes nothing and reports it
   * all `uncovered` (a call to refuse); true takes what is left and reports the rest (settling a
   * call that cost more than its hold).
   */
  allowPartial?: boolean;
  /** Unix seconds; now by default. */
  now?: number;
}

/** Quota taken from one subscription's allowance in one period. */
export interface FundingPart {
  subscriptionId: number;
  /** The period it was taken from: quota goes back only while this period lasts. */
  periodEnd: number;
  amount: number;
}

export interface Funding {
  preference: FundingPreference;
  /** Taken from subscription allowances (the sum of `parts`). */
  fromSubscription: number;
  /** What the wallet must pay; the caller holds and charges it as before. */
  fromWallet: number;
  /** `subscription_only`: what no allowed source pays (the call is to be refused or written off). */
  uncovered: number;
  parts: FundingPart[];
}

export const isFundingPreference = (value: unknown): value is FundingPreference =>
  typeof value === 'string' && (fundingPreferences as readonly string[]).includes(value);

/** The preference stored in a `users.setting` JSON text (`billing_preference`), else the default. */
export function fundingPreferenceOf(setting: string): FundingPreference {
  try {
    const value: unknown = JSON.parse(setting);
    const stored = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).billing_preference : undefined;
    return isFundingPreference(stored) ? stored : defaultFundingPreference;
  } catch {
    return defaultFundingPreference;
  }
}

export async function readFundingPreference(db: Db, userId: number): Promise<FundingPreference> {
  const row = await db.selectFrom('users').select('setting').where('id', '=', userId).executeTakeFirst();
  return fundingPreferenceOf(row?.setting ?? '');
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Takes up to `need` from the user's active subscriptions that cover the call, the one whose period
 * ends first first. Each take is `remaining_quota = remaining_quota - x WHERE remaining_quota >= x`
 * on the period read, so concurrent callers never take the same quota twice nor drive it below 0;
 * a lost race re-reads the row and takes what is left.
 */
async function takeFromAllowances(db: Db, request: FundingRequest, need: number, now: number): Promise<FundingPart[]> {
  const parts: FundingPart[] = [];
  if (need <= 0) return parts;
  const rows = await db
    .selectFrom('user_subscriptions')
    .select(['id', 'remaining_quota', 'period_end', 'models', 'groups'])
    .where('user_id', '=', request.userId)
    .where('status', '=', 'active')
    .where('period_start', '<=', now)
    .where('period_end', '>', now)
    .where('remaining_quota', '>', 0)
    .orderBy('period_end')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    if (need <= 0) break;
    if (!covers(row, request.model, request.group)) continue;
    let remaining = Number(row.remaining_quota);
    while (need > 0 && remaining > 0) {
      const take = Math.min(need, remaining);
      const result = await db
        .updateTable('user_subscriptions')
        .set((eb) => ({ remaining_quota: eb('remaining_quota', '-', take) }))
        .where('id', '=', row.id)
        .where('period_end', '=', row.period_end)
        .where('status', '=', 'active')
        .where('remaining_quota', '>=', take)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) {
        parts.push({ subscriptionId: row.id, periodEnd: Number(row.period_end), amount: take });
        need -= take;
        break;
      }
      const fresh = await db
        .selectFrom('user_subscriptions')
        .select('remaining_quota')
        .where('id', '=', row.id)
        .where('period_end', '=', row.period_end)
        .where('status', '=', 'active')
        .executeTakeFirst();
      remaining = Number(fresh?.remaining_quota ?? 0);
    }
  }
  return parts;
}

const sum = (parts: readonly FundingPart[]) => parts.reduce((total, part) => total + part.amount, 0);

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new RangeError(`funding amount must be a non-negative safe integer, got ${amount}`);
}

/**
 * Funds `amount` per the user's preference: takes the subscription share from the allowances now
 * and answers how much came from each source.
 * - `wallet_only`: all from the wallet.
 * - `subscription_first`: the allowances as far as they reach, the wallet the rest.
 * - `wallet_first`: the wallet up to `walletAvailable`, the allowances the rest, the wallet again
 *   whatever they cannot cover.
 * - `subscription_only`: the allowances only; see `allowPartial` for a shortfall.
 */
export async function takeFunding(db: Db, request: FundingRequest): Promise<Funding> {
  assertAmount(request.amount);
  const preference = request.preference ?? (await readFundingPreference(db, request.userId));
  const now = request.now ?? nowSeconds();
  const amount = request.amount;
  if (preference === 'wallet_only') return { preference, fromSubscription: 0, fromWallet: amount, uncovered: 0, parts: [] };
  if (preference === 'wallet_first') {
    const wallet = Math.min(amount, Math.max(0, Math.floor(request.walletAvailable ?? amount)));
    const parts = await takeFromAllowances(db, request, amount - wallet, now);
    const fromSubscription = sum(parts);
    return { preference, fromSubscription, fromWallet: amount - fromSubscription, uncovered: 0, parts };
  }
  const parts = await takeFromAllowances(db, request, amount, now);
  const fromSubscription = sum(parts);
  if (preference === 'subscription_first')
    return { preference, fromSubscription, fromWallet: amount - fromSubscription, uncovered: 0, parts };
  if (fromSubscription === amount || request.allowPartial) {
    return { preference, fromSubscription, fromWallet: 0, uncovered: amount - fromSubscription, parts };
  }
  await returnFunding(db, parts);
  return { preference, fromSubscription: 0, fromWallet: 0, uncovered: amount, parts: [] };
}

/**
 * Gives subscription quota back (a failed call, or a hold larger than the bill): up to `amount`
 * (all of `parts` by default), the last part taken first, each to the period it was taken from and
 * never above that period's allowance. Quota of a period that has ended is not given back (the
 * allowance reset since). Answers how much went back and the parts still taken.
 */
export async function returnFunding(
  db: Db,
  parts: readonly FundingPart[],
  amount = sum(parts),
): Promise<{ returned: number; kept: FundingPart[] }> {
  assertAmount(amount);
  let left = amount;
  const kept = parts.map((part) => ({ ...part }));
  const backs: Array<{ part: FundingPart; back: number }> = [];
  for (let i = kept.length - 1; i >= 0 && left > 0; i -= 1) {
    const part = kept[i]!;
    const back = Math.min(part.amount, left);
    if (back <= 0) continue;
    backs.push({ part: { ...part }, back });
    part.amount -= back;
    left -= back;
  }
  // Written in the order takes lock allowances (period end, then id), so a transaction that gives
  // back and one that takes never wait on each other's rows in opposite orders.
  backs.sort((a, b) => a.part.periodEnd - b.part.periodEnd || a.part.subscriptionId - b.part.subscriptionId);
  let returned = 0;
  for (const { part, back } of backs) {
    const result = await db
      .updateTable('user_subscriptions')
      .set((eb) => ({ remaining_quota: eb('remaining_quota', '+', back) }))
      .where('id', '=', part.subscriptionId)
      .where('period_end', '=', part.periodEnd)
      .where((eb) => eb('remaining_quota', '<=', eb('period_quota', '-', back)))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) returned += back;
  }
  return { returned, kept: kept.filter((part) => part.amount > 0) };
}

/**
 * Settles a call funded by `funding` at its real cost `actual`. Below the funded amount, the source
 * the preference uses last gives back first (its unused share returns to the allowance or is not
 * charged to the wallet); above it, the difference is funded like a new call (`allowPartial`, so a
 * `subscription_only` shortfall is reported `uncovered`). Answers the final split.
 */
export async function settleFunding(
  db: Db,
  funding: Funding,
  actual: number,
  request: Omit<FundingRequest, 'amount' | 'preference'>,
): Promise<Funding> {
  assertAmount(actual);
  const { preference } = funding;
  const funded = funding.fromSubscription + funding.fromWallet;
  if (actual > funded) {
    const walletAvailable = request.walletAvailable === undefined ? undefined : Math.max(0, request.walletAvailable - funding.fromWallet);
    const extra = await takeFunding(db, { ...request, walletAvailable, preference, amount: actual - funded, allowPartial: true });
    return {
      preference,
      fromSubscription: funding.fromSubscription + extra.fromSubscription,
      fromWallet: funding.fromWallet + extra.fromWallet,
      uncovered: extra.uncovered,
      parts: [...funding.parts, ...extra.parts],
    };
  }
  const subscriptionFirst = preference === 'subscription_first' || preference === 'subscription_only';
  const keepSubscription = subscriptionFirst ? Math.min(funding.fromSubscription, actual) : Math.max(0, actual - funding.fromWallet);
  const { kept } = await returnFunding(db, funding.parts, funding.fromSubscription - keepSubscription);
  return { preference, fromSubscription: keepSubscription, fromWallet: actual - keepSubscription, uncovered: 0, parts: kept };
}
