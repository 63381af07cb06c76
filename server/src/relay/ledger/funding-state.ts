import type { FundingPreference } from '@modelgate/shared';
import { fundingPreferenceOf } from '../../subscriptions/funding.js';

/**
 * What the relay keeps per cached user about subscription funding (docs/billing.md, "Funding by
 * subscriptions"): read when the user is (re)loaded, never per request. Instances learn of a
 * subscription bought, granted, renewed, cancelled or expired through the 'users' bus event its
 * writer publishes, and re-read every user each SYNC_FREQUENCY anyway.
 */
export interface SubscriptionFunding {
  preference: FundingPreference;
  /** An active subscription existed at the last reload (its period may have ended since: the take finds nothing then). */
  hasSubscription: boolean;
}

/**
 * null (the wallet pays everything, nothing is queried) for a user without an active subscription
 * or preferring `wallet_only`; a `subscription_only` user without one keeps a state, so their calls
 * are refused without a query.
 */
export function subscriptionFundingOf(setting: string, hasSubscription: boolean): SubscriptionFunding | null {
  if (!hasSubscription && !setting.includes('subscription_only')) return null;
  const preference = fundingPreferenceOf(setting);
  if (preference === 'wallet_only') return null;
  if (!hasSubscription && preference !== 'subscription_only') return null;
  return { preference, hasSubscription };
}
