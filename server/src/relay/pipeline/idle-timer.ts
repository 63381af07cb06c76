/**
 * The stream idle timeout of both stream paths (stream.ts SseRelay, event-stream.ts pipeEvents):
 * fires `onIdle` once the upstream has sent nothing for `timeoutMs` while the client kept up. While
 * the relay waits for a slow client to drain (backpressure, the upstream paused by us), the timer does
 * not run; it counts again from zero once the client has caught up. Arrivals only note the time (no
 * timer call per piece); the timer re-arms itself for the time left when it fires early.
 */
export class IdleTimer {
  private lastActivity = Date.now();
  private isPaused = false;
  private timer: NodeJS.Timeout | null;

  constructor(private readonly timeoutMs: number, private readonly onIdle: () => void) {
    this.timer = setTimeout(this.check, timeoutMs);
  }

  /** Upstream bytes arrived. */
  touch(): void {
    this.lastActivity = Date.now();
  }

  /** The relay waits on the client (its buffer is full): not idle, however long that takes. */
  pause(): void {
    this.isPaused = true;
  }

  /** The client drained: the upstream gets the whole timeout from now. */
  resume(): void {
    this.isPaused = false;
    this.lastActivity = Date.now();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly check = (): void => {
    if (this.timer === null) return;
    const quiet = this.isPaused ? 0 : Date.now() - this.lastActivity;
    if (quiet < this.timeoutMs) {
      this.timer = setTimeout(this.check, this.timeoutMs - quiet);
      return;
    }
    this.timer = null;
    this.onIdle();
  };
}
