/** A client that reads nothing for this many idle timeouts in a row is ended too (it holds an upstream and a hold). */
export const stalledClientFactor = 5;

/**
 * The stream idle timeout of the stream driver (stream-driver.ts):
 * fires `onIdle` once the upstream has sent nothing for `timeoutMs` while the client kept up. While
 * the relay waits for a slow client to drain (backpressure, the upstream paused by us), the idle
 * timer does not run; it counts again from zero once the client has caught up. A client that drains
 * nothing at all for 5 × `timeoutMs` is stalled, not slow, and ends the stream the same way.
 * Arrivals only note the time (no timer call per piece); the timer re-arms itself for the time left
 * when it fires early.
 */
export class IdleTimer {
  private lastActivity = Date.now();
  private pausedAt = 0;
  private timer: NodeJS.Timeout | null;

  constructor(
    private readonly timeoutMs: number,
    private readonly onIdle: () => void,
  ) {
    this.timer = setTimeout(this.check, timeoutMs);
  }

  /** Upstream bytes arrived. */
  touch(): void {
    this.lastActivity = Date.now();
  }

  /** The relay waits on the client (its buffer is full): not idle, unless the client stalls. */
  pause(): void {
    if (this.pausedAt === 0) this.pausedAt = Date.now();
  }

  /** The client drained: the upstream gets the whole timeout from now. */
  resume(): void {
    this.pausedAt = 0;
    this.lastActivity = Date.now();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly check = (): void => {
    if (this.timer === null) return;
    const now = Date.now();
    const left =
      this.pausedAt !== 0 ? this.timeoutMs * stalledClientFactor - (now - this.pausedAt) : this.timeoutMs - (now - this.lastActivity);
    if (left > 0) {
      this.timer = setTimeout(this.check, Math.min(left, this.timeoutMs));
      return;
    }
    this.timer = null;
    this.onIdle();
  };
}
