import type { AppContext } from '../../context.js';
import { findGroupRatioInfo, findModelPricing } from '../billing/pricing.js';
import { computeQuota } from '../billing/quota.js';
import { relayErrors } from '../errors.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import { reserve, type Hold } from '../ledger/hold.js';
import { planFundedStart, type PricedStart } from '../ledger/funding-hold.js';
import type { RelayState } from '../state.js';

/** The price of one task action: ModelPrice × group ratio; an unpriced action is refused. */
export function priceOf(ctx: AppContext, caller: RelayCaller, model: string, units = 1): { quota: number; start: PricedStart } {
  const pricing = findModelPricing(ctx.options, model);
  const isFree = ctx.options.bool('SelfUseModeEnabled') || caller.user.acceptsUnsetModels;
  if ((!pricing.isKnown || pricing.quotaType !== 1) && !isFree) throw relayErrors.unpricedTask(model);
  const { groupRatio } = findGroupRatioInfo(ctx.options, caller.user.group, caller.group);
  const quota = computeQuota(
    pricing,
    groupRatio,
    { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
    ctx.options.number('QuotaPerUnit'),
    units,
  );
  return { quota: pricing.quotaType === 1 ? quota : 0, start: { pricing, groupRatio, model } };
}

/**
 * The hold of a task's price: on the wallet, or for a user with subscription funding taken by the
 * preference as a chat call's (ledger/funding-hold.ts; `subscription_only` without allowance: 403).
 */
export function holdPrice(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  quota: number,
  start: PricedStart,
  isGone: () => boolean,
): Hold | Promise<Hold> {
  if (caller.user.funding === null || quota === 0) return reserve(caller, quota);
  return planFundedStart(ctx, relay, caller, start, isGone);
}
