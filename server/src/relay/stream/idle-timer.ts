/** A client that reads nothing for this many idle timeouts in a row is ended too (it holds an upstream and a hold). */
const stalledClientFactor = 5;

/**
 * The one clock of every running stream's idle timer with the same timeout: one interval ticking
 * every tenth of the timeout (10 ms to 1 s), instead of a timer set and cleared per stream (Node's
 * timer list work was a measurable share of a short stream's cost). An idle stream is ended between
 * `timeoutMs` and `timeoutMs` + one tick after its last activity. The interval stops at the first
 * tick that finds no stream running.
 */
class IdleSweep {
  private readonly timers = new Set<IdleTimer>();
  private interval: NodeJS.Timeout | null = null;
  private readonly tickMs: number;

  constructor(timeoutMs: number) {
    this.tickMs = Math.min(1000, Math.max(10, Math.floor(timeoutMs / 10)));
  }

  add(timer: IdleTimer): void {
    this.timers.add(timer);
    if (this.interval === null) {
      this.interval = setInterval(this.sweep, this.tickMs);
      this.interval.unref();
    }
  }

  delete(timer: IdleTimer): void {
    this.timers.delete(timer);
    if (this.timers.size === 0 && this.interval !== null) {
      clearInterval(this.interval);
      this.interval = null;
    }
  }

  private readonly sweep = (): void => {
    const now = Date.now();
    for (const timer of this.timers) timer.check(now);
  };
}

const sweeps = new Map<number, IdleSweep>();

function sweepOf(timeoutMs: number): IdleSweep {
  let sweep = sweeps.get(timeoutMs);
  if (!sweep) {
    sweep = new IdleSweep(timeoutMs);
    sweeps.set(timeoutMs, sweep);
  }
  return sweep;
}

/**
 * The stream idle timeout of the stream driver (stream-driver.ts):
 * fires `onIdle` once the upstream has sent nothing for `timeoutMs` while the client kept up. While
 * the relay waits for a slow client to drain (backpressure, the upstream paused by us), the idle
 * timer does not run; it counts again from zero once the client has caught up. A client that drains
 * nothing at all for 5 × `timeoutMs` is stalled, not slow, and ends the stream the same way.
 * Arrivals only note the time; the shared sweep (above) looks at every running stream once a tick.
 */
export class IdleTimer {
  private lastActivity = Date.now();
  private pausedAt = 0;
  private sweep: IdleSweep | null;

  constructor(private readonly timeoutMs: number, private readonly onIdle: () => void) {
    this.sweep = sweepOf(timeoutMs);
    this.sweep.add(this);
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
    this.sweep?.delete(this);
    this.sweep = null;
  }

  /** Called by the sweep: ends the stream once its time is up. */
  check(now: number): void {
    if (this.sweep === null) return;
    const isIdle = this.pausedAt !== 0
      ? now - this.pausedAt >= this.timeoutMs * stalledClientFactor
      : now - this.lastActivity >= this.timeoutMs;
    if (!isIdle) return;
    this.stop();
    this.onIdle();
  }
}
