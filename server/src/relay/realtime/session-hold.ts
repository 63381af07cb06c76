import type { AppContext } from '../../context.js';
import { planFundedStart } from '../ledger/funding-hold.js';
import { reserve, type Hold } from '../ledger/hold.js';
import { lowBalanceTurn } from '../ledger/hold-policy.js';
import type { RelayState } from '../state.js';
import type { RealtimeRequest } from './session.js';

/**
 * The session's opening hold (the price's PreConsumedQuota): reserved on the wallet, or for a user with
 * subscription funding taken by the preference as a chat call's (ledger/funding-hold.ts), so a
 * `subscription_only` user without allowance is refused with the chat call's 403.
 */
export function holdSession(ctx: AppContext, relay: RelayState, request: RealtimeRequest, isGone: () => boolean): Hold | Promise<Hold> {
  const { caller } = request;
  if (caller.user.funding === null) {
    // A low balance runs one call at a time, as chat's does (hold-policy.ts): the session keeps the turn until it settles.
    const turn = lowBalanceTurn(ctx, relay, caller, isGone);
    if (turn === null) return reserve(caller, request.holdAmount);
    return turn.then((lane) => {
      try {
        return reserve(caller, request.holdAmount, lane);
      } catch (error) {
        lane.release();
        throw error;
      }
    });
  }
  return planFundedStart(ctx, relay, caller, { pricing: request.pricing, groupRatio: request.groupRatio, model: request.model }, isGone);
}
