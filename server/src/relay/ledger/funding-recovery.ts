import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { FundingHoldStore } from '../../subscriptions/funding-holds.js';
import type { RelayLog } from '../state.js';

/** How often an instance marks itself alive, and after how long unseen it is taken for dead. */
export const beatSeconds = 10;
export const deadAfterSeconds = 60;
/** How often the held shares of dead instances are looked for (and once at start). */
const sweepSeconds = 30;

/**
 * The held subscription shares of this instance (subscriptions/funding-holds.ts), its heartbeat,
 * and the sweep that gives back what dead instances held: at start and every half minute. One
 * instance alone (the memory cache: no other can share the database) takes every other instance
 * for dead at once, so a restart after a hard kill gives the killed process's shares back right away.
 * Answers the store and its stop (run after the last flush).
 */
export function startFundingRecovery(ctx: AppContext, log: RelayLog): { holds: FundingHoldStore; stop(): Promise<void> } {
  const holds = new FundingHoldStore(ctx.storage, randomBytes(12).toString('hex'));
  const isAlone = ctx.cache.kind === 'memory';
  const beat = () => holds.beat().catch((error: unknown) => log.warn({ err: error }, 'instance heartbeat not written'));
  const sweep = () =>
    holds
      .sweep({ deadAfterSeconds, isAlone })
      .then(({ holds: count, quota }) => {
        if (count > 0) log.warn({ holds: count, quota }, 'subscription shares held by a stopped instance given back');
      })
      .catch((error: unknown) => log.error({ err: error }, 'sweep of held subscription shares failed'));
  const started = beat().then(sweep);
  const beating = setInterval(() => void beat(), beatSeconds * 1000);
  const sweeping = setInterval(() => void sweep(), sweepSeconds * 1000);
  beating.unref();
  sweeping.unref();
  return {
    holds,
    async stop() {
      clearInterval(beating);
      clearInterval(sweeping);
      await started;
      await holds.leave().catch((error: unknown) => log.warn({ err: error }, 'instance heartbeat not removed'));
    },
  };
}
