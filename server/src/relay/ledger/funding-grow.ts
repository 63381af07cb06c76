import { RelayError } from '../errors.js';
import type { SubscriptionShare } from './funding-hold.js';
import { exhaustedQuota, growHold, spendable, type Hold } from './hold.js';

/**
 * The funding of a running Realtime session whose user has subscription funding (docs/billing.md,
 * "Funding by subscriptions"; the wallet-only session grows its hold with growHold alone). After each
 * `response.done` the session's cost so far is funded like a new call of the difference, by the
 * user's preference and with the same take (SubscriptionShare.take): the allowances'
 * part is taken in the database and added to the hold's share, the wallet's part grows the hold.
 * Growths run one after another; settle waits for the last (`settled`), then splits the real cost
 * exactly (funding-settle.ts).
 */
export class GrowingFunding {
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly hold: Hold) {}

  /**
   * Funds the session up to `amount`, its cost so far. Answers the error that ends the session when
   * neither source the preference allows can pay on (null while one can); a failed take is thrown.
   */
  grow(amount: number): Promise<RelayError | null> {
    const run = this.last.then(() => this.growTo(amount));
    this.last = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every growth asked for has been written. */
  settled(): Promise<unknown> {
    return this.last;
  }

  private async growTo(amount: number): Promise<RelayError | null> {
    const { hold } = this;
    const share = hold.funding as SubscriptionShare | null;
    if (share === null || hold.isReleased) return null;
    const need = amount - share.funding.fromSubscription - hold.amount;
    if (need <= 0) return null;
    const { caller } = hold;
    const { preference } = share.funding;
    const walletAvailable = Math.max(0, spendable(caller).user);
    const more = await share.take({ amount: need, preference, walletAvailable, allowPartial: true });
    growHold(hold, hold.amount + more.fromWallet);
    share.funding.fromWallet = hold.amount;
    // The allowances could not pay their part (the wallet was to pay less, or nothing): when the
    // wallet cannot pay on either, or may not (`subscription_only`), the session ends.
    const walletPart = preference === 'wallet_first' ? Math.min(need, walletAvailable) : 0;
    const isAllowanceShort = more.fromWallet + more.uncovered > walletPart;
    if (isAllowanceShort && more.uncovered > 0) {
      return new RelayError(403, 'insufficient_subscription_quota', '订阅额度已用尽，实时会话已结束');
    }
    return exhaustedQuota(caller, isAllowanceShort);
  }
}
