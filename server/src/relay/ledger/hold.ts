import { RelayError } from '../errors.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import { freeLease, type Lease } from '../routing/concurrency.js';

/**
 * Quota reserved in memory for a call in flight, on the user and the token (every relayed call:
 * chat and the other endpoints, task submits, Realtime sessions). Concurrent calls see it as spent;
 * it becomes the bill at settle, grows while a Realtime session runs, and is given back when the
 * call bills nothing. `lane` is the low-balance slot the call holds (hold-policy.ts), freed with it.
 */
export interface Hold {
  caller: RelayCaller;
  amount: number;
  isReleased: boolean;
  lane: Lease;
  /**
   * The share of the call a subscription's allowance pays (funding-hold.ts), null when the wallet
   * pays it all: given back with the hold, or billed by settle.
   */
  funding: HeldFunding | null;
}

/** A subscription share held in the database for a call; release() gives it back (a failed call). */
export interface HeldFunding {
  release(): void;
}

/** What the user, and the token unless unlimited, can still spend: quota − pending − held. */
export function spendable({ user, token }: RelayCaller): { user: number; token: number } {
  return {
    user: user.quota - user.pendingQuota - user.held,
    token: token && !token.isUnlimited ? token.remainQuota - token.pendingQuota - token.held : Infinity,
  };
}

/** 403 when the user or the limited token cannot cover `amount` on top of every hold in flight (a bare check, no reservation). */
export function quotaShortfall(caller: RelayCaller, amount: number): RelayError | null {
  const left = spendable(caller);
  if (left.user <= 0 || left.user < amount) return new RelayError(403, 'insufficient_user_quota', '用户额度不足');
  if (left.token < amount) return new RelayError(403, 'insufficient_token_quota', '令牌额度不足');
  return null;
}

/** Reserves exactly `amount` (403 when the user or token cannot cover it). */
export function reserve(caller: RelayCaller, amount: number, lane: Lease = freeLease): Hold {
  const shortfall = quotaShortfall(caller, amount);
  if (shortfall) throw shortfall;
  return holdOf(caller, amount, lane);
}

/** Takes a hold the caller was already checked for. */
export function holdOf(caller: RelayCaller, amount: number, lane: Lease = freeLease): Hold {
  caller.user.held += amount;
  if (caller.token) caller.token.held += amount;
  return { caller, amount, isReleased: false, lane, funding: null };
}

/** Grows a hold to `amount` (never shrinks it): a running session's cost so far counts as spent. */
export function growHold(hold: Hold, amount: number): void {
  if (hold.isReleased || amount <= hold.amount) return;
  const delta = amount - hold.amount;
  hold.caller.user.held += delta;
  if (hold.caller.token) hold.caller.token.held += delta;
  hold.amount = amount;
}

/** Gives the hold (and its low-balance slot) back; idempotent. Settle calls it before recording the bill. */
export function releaseHold(hold: Hold): void {
  if (hold.isReleased) return;
  hold.isReleased = true;
  hold.caller.user.held -= hold.amount;
  if (hold.caller.token) hold.caller.token.held -= hold.amount;
  hold.lane.release();
  if (hold.funding !== null) hold.funding.release();
}

/**
 * The error that ends a running session once its running total has used up the user's or token's
 * quota. `isWalletPaying` false: the wallet is not paying the session now (a subscription allowance
 * is, funding-grow.ts), only the token is checked.
 */
export function exhaustedQuota(caller: RelayCaller, isWalletPaying = true): RelayError | null {
  const left = spendable(caller);
  if (isWalletPaying && left.user <= 0) return new RelayError(403, 'insufficient_user_quota', '用户额度已用尽，实时会话已结束');
  if (left.token <= 0) return new RelayError(403, 'insufficient_token_quota', '令牌额度已用尽，实时会话已结束');
  return null;
}
