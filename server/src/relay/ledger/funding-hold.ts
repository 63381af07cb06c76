import type { AppContext } from '../../context.js';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { FundingHoldStore } from '../../subscriptions/funding-holds.js';
import { settleFunding, takeFunding, type Funding, type FundingRequest } from '../../subscriptions/funding.js';
import { RelayError } from '../errors.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { RelayLog, RelayState } from '../state.js';
import { freeLease } from '../routing/concurrency.js';
import { holdOf, releaseHold, spendable, type HeldFunding, type Hold } from './hold.js';
import { affordableOutput, planHold, requestCosts, type Costs, type HoldRequest, type PlannedHold } from './hold-policy.js';

/**
 * The hold of a call whose user has subscription funding (docs/billing.md, "Funding by
 * subscriptions"); callers without it never come here (`user.funding === null`, one field read).
 * The subscription's share is taken from its period allowance in the database, exact across
 * instances (subscriptions/funding.ts); the wallet holds the rest in memory with the usual policy
 * (hold-policy.ts, the share given as `covered`). A limited token holds the share too: it caps what
 * is spent through it from any source.
 *
 * The share is the call's worst cost (what the allowance can cover of it): an allowance is never
 * overrun by a call, and what the call did not use goes back at settle (funding-settle.ts).
 */
export class SubscriptionShare implements HeldFunding {
  private isDone = false;

  constructor(
    private readonly store: FundingHoldStore,
    private readonly log: RelayLog,
    readonly caller: RelayCaller,
    readonly model: string,
    /** The group the call was held in: an allowance pays only for the models and groups its plan covers. */
    readonly group: string,
    /** What was taken: the parts of each allowance, and what the wallet was to pay then. */
    readonly funding: Funding,
    /** The `funding_holds` row that keeps the parts while the call runs (null: none taken); after settle, the bill's. */
    public holdId: number | null,
  ) {
    if (caller.token) caller.token.held += funding.fromSubscription;
  }

  /** A failed or refused call: the share goes back to its allowances, the token's hold of it too. */
  release(): void {
    if (!this.end()) return;
    if (this.funding.parts.length === 0) return;
    void this.store.giveBack(this.caller.user.id, this.holdId, this.funding.parts).catch((error: unknown) => {
      this.log.error(
        { err: error, userId: this.caller.user.id, parts: this.funding.parts },
        'subscription quota of a failed call not returned',
      );
    });
  }

  /**
   * The split of the call's real cost `actual` (funding.ts settleFunding: the share given back or
   * grown), written with the share's row in one transaction: the row then keeps the bill's parts
   * (`holdId`) until the bill's log row is written. Allowances first: what the wallet was left to pay
   * is taken from the allowances once more when they have room now (a burst of calls held them all;
   * those calls have given back since). A share a sweep gave back (its instance taken for dead) is
   * funded afresh.
   */
  async settle(actual: number, walletAvailable: number): Promise<Funding> {
    const request = { userId: this.caller.user.id, model: this.model, group: this.group, walletAvailable };
    const { nextId, result } = await this.store.change(request.userId, this.holdId, async (trx, wasSwept) => {
      const held = wasSwept ? { ...this.funding, fromSubscription: 0, parts: [] } : this.funding;
      const split = await splitCost(trx, held, actual, request);
      return { parts: split.parts, result: split };
    });
    this.holdId = nextId;
    return result;
  }

  /**
   * Takes more for a running Realtime session (funding-grow.ts), by the user's preference, with the
   * share's row in one transaction; what the allowances gave is added to the share (given back or
   * billed with it, held on the token with it).
   */
  async take(request: Omit<FundingRequest, 'userId' | 'model' | 'group'>): Promise<Funding> {
    const userId = this.caller.user.id;
    const { nextId, wasSwept, result } = await this.store.change(userId, this.holdId, async (trx, wasSwept) => {
      const more = await takeFunding(trx, { ...request, userId, model: this.model, group: this.group });
      return { parts: wasSwept ? more.parts : [...this.funding.parts, ...more.parts], result: more };
    });
    if (wasSwept) this.forget();
    this.holdId = nextId;
    this.add(result);
    return result;
  }

  private add(more: Funding): void {
    if (this.isDone || more.fromSubscription === 0) return;
    this.funding.parts.push(...more.parts);
    this.funding.fromSubscription += more.fromSubscription;
    if (this.caller.token) this.caller.token.held += more.fromSubscription;
  }

  /** A sweep gave the parts back: none of them is held any more. */
  private forget(): void {
    if (this.caller.token && !this.isDone) this.caller.token.held -= this.funding.fromSubscription;
    this.funding.fromSubscription = 0;
    this.funding.parts = [];
  }

  /** Ends the share's hold on the token; false when it had ended already. */
  end(): boolean {
    if (this.isDone) return false;
    this.isDone = true;
    if (this.caller.token) this.caller.token.held -= this.funding.fromSubscription;
    return true;
  }
}

/** settle's split on the share's transaction (see SubscriptionShare.settle). */
async function splitCost(
  trx: Transaction<Database>,
  held: Funding,
  actual: number,
  request: Omit<FundingRequest, 'amount' | 'preference'>,
): Promise<Funding> {
  const split = await settleFunding(trx, held, actual, request);
  const onWallet = split.fromWallet + split.uncovered;
  if (split.preference === 'wallet_first' || split.preference === 'wallet_only' || onWallet === 0) return split;
  const more = await takeFunding(trx, { ...request, amount: onWallet, preference: 'subscription_first' });
  if (more.fromSubscription === 0) return split;
  const uncovered = Math.max(0, split.uncovered - more.fromSubscription);
  return {
    preference: split.preference,
    fromSubscription: split.fromSubscription + more.fromSubscription,
    fromWallet: onWallet - more.fromSubscription - uncovered,
    uncovered,
    parts: [...split.parts, ...more.parts],
  };
}

/**
 * The funded hold: the subscription share first, then the wallet's for the rest. Refusals give the
 * share back. `subscription_only` holds the share alone: what the allowance left pays for, with the
 * output limit it pays for, or a 403 when it cannot pay the likely cost.
 */
export async function planFundedHold(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  request: HoldRequest,
  isGone: () => boolean,
): Promise<PlannedHold> {
  const funding = caller.user.funding!;
  const costs = requestCosts(ctx, relay, request);
  const quotaPerUnit = ctx.options.number('QuotaPerUnit');
  const left = spendable(caller);
  const isOnly = funding.preference === 'subscription_only';
  if (isOnly && !funding.hasSubscription) throw noAllowance();
  if (left.token < costs.likely) throw new RelayError(403, 'insufficient_token_quota', '令牌额度不足');
  if (funding.preference === 'wallet_first') return walletFirstHold(ctx, caller, request, costs, left, quotaPerUnit, relay);
  const { taken, holdId } = await takeShare(relay, caller, request, Math.min(costs.worst, left.token), isOnly);
  const share = new SubscriptionShare(
    relay.holds,
    relay.log,
    caller,
    request.model,
    caller.group,
    { ...taken, preference: funding.preference, uncovered: 0 },
    holdId,
  );
  try {
    if (isOnly) return onlyFromAllowance(caller, request, costs, share, quotaPerUnit);
    if (taken.fromSubscription >= costs.worst) return attach(holdOf(caller, 0), share, null);
    const planned = planHold(ctx, relay, caller, { ...request, covered: taken.fromSubscription }, isGone);
    const { hold, outputCap } = planned instanceof Promise ? await planned : planned;
    // Settle splits the real cost by the user's preference; the wallet's part is what it holds.
    share.funding.fromWallet = hold.amount;
    return attach(hold, share, outputCap);
  } catch (error) {
    share.release();
    throw error;
  }
}

/** What a fixed-price call is held for: a task's price, a Realtime session's opening hold. */
export interface PricedStart {
  pricing: HoldRequest['pricing'];
  groupRatio: number;
  model: string;
}

/**
 * The funded hold of a task submit or a Realtime session: planFundedHold for a call with no output to
 * foresee (its worst cost is its likely cost: the price, or a session's PreConsumedQuota). The
 * low-balance slot is not kept, as the wallet path of these calls reserves without one: the hold is
 * the whole price (a session's then grows with its cost, funding-grow.ts), so no overdraft is left to
 * guard against, and a session must not make the user's other calls wait for its end.
 */
export async function planFundedStart(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  start: PricedStart,
  isGone: () => boolean,
): Promise<Hold> {
  const { hold } = await planFundedHold(
    ctx,
    relay,
    caller,
    { ...start, promptTokens: 0, maxTokens: 0, producesText: false, calls: 1 },
    isGone,
  );
  hold.lane.release();
  hold.lane = freeLease;
  return hold;
}

/**
 * The refusal a funded caller gets before any query: `subscription_only` without an active
 * subscription (a Realtime upgrade checks it before accepting the socket); null otherwise.
 */
export function fundingRefusal(caller: RelayCaller): RelayError | null {
  const funding = caller.user.funding;
  return funding !== null && funding.preference === 'subscription_only' && !funding.hasSubscription ? noAllowance() : null;
}

/** Up to `target` from the allowances that cover the call (a take never overruns one: funding.ts), written down with its row. */
async function takeShare(
  relay: RelayState,
  caller: RelayCaller,
  request: HoldRequest,
  target: number,
  isOnly: boolean,
): Promise<{ taken: Funding; holdId: number | null }> {
  if (target <= 0) return { taken: emptyFunding(), holdId: null };
  const userId = caller.user.id;
  const { nextId, result } = await relay.holds.change(userId, null, async (trx) => {
    const taken = await takeFunding(trx, {
      userId,
      model: request.model,
      group: caller.group,
      amount: target,
      preference: isOnly ? 'subscription_only' : 'subscription_first',
      allowPartial: true,
    });
    return { parts: taken.parts, result: taken };
  });
  return { taken: result, holdId: nextId };
}

/**
 * wallet_first: the wallet holds what it can of the worst cost at once (so calls side by side never
 * count the same balance twice), the allowances the rest; below the likely cost together it is
 * refused, below the worst the upstream is sent the output limit they pay for.
 */
async function walletFirstHold(
  ctx: AppContext,
  caller: RelayCaller,
  request: HoldRequest,
  costs: Costs,
  left: { user: number; token: number },
  quotaPerUnit: number,
  relay: RelayState,
): Promise<PlannedHold> {
  const hold = holdOf(caller, Math.max(0, Math.min(left.user, left.token, costs.worst)));
  let share: SubscriptionShare | null = null;
  try {
    const { taken, holdId } = await takeShare(relay, caller, request, Math.min(costs.worst, left.token) - hold.amount, false);
    share = new SubscriptionShare(
      relay.holds,
      relay.log,
      caller,
      request.model,
      caller.group,
      { ...taken, preference: 'wallet_first', fromWallet: hold.amount, uncovered: 0 },
      holdId,
    );
    const room = hold.amount + taken.fromSubscription;
    if (room < costs.likely || (costs.likely > 0 && room <= 0)) {
      throw new RelayError(
        403,
        'insufficient_user_quota',
        `用户额度不足以支付本次请求：预计需要 ${quotaText(costs.likely, quotaPerUnit)}，剩余 ${quotaText(room, quotaPerUnit)}`,
      );
    }
    return attach(hold, share, room >= costs.worst ? null : affordableOutput(request, room, costs.maxOutput, quotaPerUnit));
  } catch (error) {
    releaseHold(hold);
    share?.release();
    throw error;
  }
}

function onlyFromAllowance(
  caller: RelayCaller,
  request: HoldRequest,
  costs: Costs,
  share: SubscriptionShare,
  quotaPerUnit: number,
): PlannedHold {
  const got = share.funding.fromSubscription;
  if (got < costs.likely) throw noAllowance(costs.likely, got, quotaPerUnit);
  if (got >= costs.worst) return attach(holdOf(caller, 0), share, null);
  // Less than the worst cost is left: the upstream is sent the output limit the allowance pays for.
  return attach(holdOf(caller, 0), share, affordableOutput(request, got, costs.maxOutput, quotaPerUnit));
}

function attach(hold: ReturnType<typeof holdOf>, share: SubscriptionShare, outputCap: number | null): PlannedHold {
  hold.funding = share;
  return { hold, outputCap };
}

const emptyFunding = (): Funding => ({ preference: 'subscription_first', fromSubscription: 0, fromWallet: 0, uncovered: 0, parts: [] });

/** 403 for a `subscription_only` caller whose allowances cannot pay the call (or who has none). */
function noAllowance(likely?: number, left?: number, quotaPerUnit?: number): RelayError {
  if (likely === undefined || left === undefined || quotaPerUnit === undefined) {
    return new RelayError(403, 'insufficient_subscription_quota', '没有可用的订阅额度，而扣费方式为仅使用订阅');
  }
  return new RelayError(
    403,
    'insufficient_subscription_quota',
    `订阅额度不足以支付本次请求：预计需要 ${quotaText(likely, quotaPerUnit)}，剩余 ${quotaText(left, quotaPerUnit)}`,
  );
}

const quotaText = (quota: number, quotaPerUnit: number) =>
  `${Math.max(0, Math.floor(quota))} (≈ $${(Math.max(0, quota) / quotaPerUnit).toPrecision(3)})`;
