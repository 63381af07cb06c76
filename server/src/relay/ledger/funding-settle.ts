import type { AppContext } from '../../context.js';
import type { Funding } from '../../subscriptions/funding.js';
import type { RelayState } from '../state.js';
import type { SubscriptionShare } from './funding-hold.js';
import { releaseHold, spendable, type Hold } from './hold.js';
import type { PendingLog } from './log-rows.js';

/**
 * What a consume log row's `other` says about who paid (docs/billing.md, "Funding by subscriptions"):
 * `billing_source` (`subscription`, `wallet` or `mixed`), `subscription_quota` and `wallet_quota`
 * (they add up to the row's quota), `subscription_id` (the allowance that paid most) and, when
 * several paid, `subscriptions` [{id, quota}]. Rows of users without subscription funding have none
 * of these: their wallet paid.
 */
export interface FundingLogFields {
  billing_source: 'subscription' | 'wallet' | 'mixed';
  subscription_quota: number;
  wallet_quota: number;
  subscription_id?: number;
  subscriptions?: Array<{ id: number; quota: number }>;
}

/** A queued consume log that says who paid: settle's ConsumeLogRecord, a Realtime session's record. */
export type FundedLog = PendingLog & { funding: FundingLogFields | null };

/**
 * Bills a call whose hold has a subscription share (settle.ts, Realtime's settle-session.ts): the
 * real cost is split in the database first (splitFunded), then the hold is released and the bill
 * recorded at once, so while the split is written the call's wallet part stays held. The user's
 * wallet is charged only its part; the token and the channel the whole cost; the log row says who
 * paid. Counted as a call in flight, so a graceful shutdown waits for it.
 */
export function settleFunded(
  ctx: AppContext,
  relay: RelayState,
  hold: Hold,
  channelId: number,
  quota: number,
  log: FundedLog | null,
): Promise<void> {
  const { caller } = hold;
  ctx.lifecycle.callStarted();
  return splitFunded(relay, hold, quota)
    .then((split) => {
      releaseHold(hold);
      if (log) log.funding = fundingLogFields(split, quota);
      // The flush that writes the log row drops the share's row (usage-writer.ts).
      relay.usage.record(caller.user, caller.token, channelId, quota, log, quota - Math.min(quota, split.fromSubscription), split.holdId);
    })
    .finally(() => ctx.lifecycle.callEnded());
}

/** A settled split, and the `funding_holds` row that keeps its parts until the bill is written (null: none). */
export type SettledFunding = Funding & { holdId: number | null };

/**
 * The split of `quota`, the real cost of a call whose hold has a subscription share (funding-hold.ts
 * SubscriptionShare.settle), written in the database. The bill takes the share over: the hold no
 * longer gives it back when released, and the caller records the split (settleFunded) or, for a task
 * whose charge then fails, gives its parts back. Never rejects: when the database fails, the share
 * stays as taken and the wallet pays the rest, so nothing is billed twice.
 */
export async function splitFunded(relay: RelayState, hold: Hold, quota: number): Promise<SettledFunding> {
  const share = hold.funding as SubscriptionShare;
  hold.funding = null;
  const { caller } = hold;
  const walletAvailable = Math.max(0, spendable(caller).user + hold.amount);
  const split = await share.settle(quota, walletAvailable).catch((error: unknown) => {
    relay.log.error(
      { err: error, userId: caller.user.id, parts: share.funding.parts },
      'subscription share of a call not settled; billed as held',
    );
    return asHeld(share.funding, quota);
  });
  share.end();
  return { ...split, holdId: share.holdId };
}

/** The split when nothing could be given back or taken: the share as taken, the wallet the rest. */
function asHeld(funding: Funding, quota: number): Funding {
  return { ...funding, fromWallet: Math.max(0, quota - funding.fromSubscription), uncovered: 0 };
}

export function fundingLogFields(split: Funding, quota: number): FundingLogFields {
  const fromSubscription = Math.min(quota, split.fromSubscription);
  const wallet = quota - fromSubscription;
  const source = fromSubscription === 0 ? 'wallet' : wallet === 0 ? 'subscription' : 'mixed';
  const bySubscription = new Map<number, number>();
  for (const part of split.parts) bySubscription.set(part.subscriptionId, (bySubscription.get(part.subscriptionId) ?? 0) + part.amount);
  const paid = [...bySubscription].map(([id, amount]) => ({ id, quota: amount })).sort((a, b) => b.quota - a.quota);
  return {
    billing_source: source,
    subscription_quota: fromSubscription,
    wallet_quota: wallet,
    ...(paid.length > 0 ? { subscription_id: paid[0]!.id } : {}),
    ...(paid.length > 1 ? { subscriptions: paid } : {}),
  };
}
