import type { AppContext } from '../../context.js';
import type { UpstreamError } from '../errors.js';
import type { ChannelIndex } from './channel-index.js';

/** An upstream's Retry-After keeps a channel out at most this long. */
const maxRetryAfterCooldownMs = 10 * 60_000;

/**
 * The circuit breaker (ChannelCooldownFailures > 0): a channel whose calls failed that many times in
 * a row (failures the retry policy retries: 5xx, 429, unreachable …; a client's 400 is not the
 * channel's fault) is taken out of selection for ChannelCooldownSeconds, on every instance; an
 * upstream that names a wait (Retry-After on a 429/503) is taken out for that wait. After a
 * cooldown the next call is a trial: one more failure opens it again, a success closes it. A dead
 * channel thus stops taking traffic long before auto-disable (which needs a key error).
 */
export class ChannelCooldown {
  private readonly failures = new Map<number, number>();

  constructor(
    private readonly ctx: AppContext,
    private readonly channels: ChannelIndex,
  ) {}

  onSuccess(channelId: number): void {
    if (this.failures.size > 0) this.failures.delete(channelId);
  }

  onFailure(channelId: number, error: UpstreamError, isChannelFault: boolean): void {
    const threshold = this.ctx.options.number('ChannelCooldownFailures');
    if (threshold <= 0 || !isChannelFault) return;
    const now = Date.now();
    let until = error.retryAfterMs !== null && error.retryAfterMs > 0 ? now + Math.min(error.retryAfterMs, maxRetryAfterCooldownMs) : 0;
    const count = (this.failures.get(channelId) ?? 0) + 1;
    if (count >= threshold) {
      until = Math.max(until, now + this.ctx.options.number('ChannelCooldownSeconds') * 1000);
      // Half-open afterwards: the next failure opens it again at once.
      this.failures.set(channelId, threshold - 1);
    } else {
      this.failures.set(channelId, count);
    }
    if (until <= now) return;
    this.channels.coolDown(channelId, until);
    void this.ctx.bus.publish('cooldowns', `${channelId}:${until}`).catch(() => undefined);
  }

  /** Another instance opened a cooldown. */
  apply(payload: string): void {
    const [id, until] = payload.split(':').map(Number);
    if (Number.isInteger(id) && Number.isFinite(until)) this.channels.coolDown(id!, until!);
  }
}
