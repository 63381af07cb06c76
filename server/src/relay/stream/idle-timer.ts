/** A client that reads nothing for this many idle timeouts in a row is ended too (it holds an upstream and a hold). */
export const stalledClientFactor = 5;

/**
 * The running idle timers of one timeout length, checked together by one interval. A Node timer per
 * stream cost about 2 µs of CPU per streamed call (setTimeout's list insert and clearTimeout's
 * unenroll, per call); here a stream costs a Set insert and delete. The interval runs only while
 * streams run: the first check that finds none stops it. A timer fires at most one period (an eighth
 * of its timeout, at most a second) after its time.
 */
class Sweep {
  readonly timers = new Set<IdleTimer>();
  private interval: NodeJS.Timeout | null = null;
  private readonly periodMs: number;

  constructor(timeoutMs: number) {
    this.periodMs = Math.min(1000, Math.max(5, Math.floor(timeoutMs / 8)));
  }

  get isSweeping(): boolean {
    return this.interval !== null;
  }

  add(timer: IdleTimer): void {
    this.timers.add(timer);
    if (this.interval === null) {
      this.interval = setInterval(this.check, this.periodMs);
      // A stream's sockets keep the process alive while it runs; the sweep never has to.
      this.interval.unref();
    }
  }

  delete(timer: IdleTimer): void {
    this.timers.delete(timer);
  }

  private readonly check = (): void => {
    if (this.timers.size === 0) {
      clearInterval(this.interval!);
      this.interval = null;
      return;
    }
    const now = Date.now();
    // A timer that fires deletes itself; a Set's iteration allows that.
    for (const timer of this.timers) timer.checkAt(now);
  };
}

/**
 * The sweeps, by timeout length, of each setInterval in use: code that swaps the timer functions (a
 * fake clock in a test) gets sweeps of its own, never one whose interval runs on the other clock.
 */
const sweepsByClock = new WeakMap<typeof setInterval, Map<number, Sweep>>();

function sweepsOfClock(): Map<number, Sweep> {
  let sweeps = sweepsByClock.get(setInterval);
  if (sweeps === undefined) {
    sweeps = new Map();
    sweepsByClock.set(setInterval, sweeps);
  }
  return sweeps;
}

/** The idle timers running for one timeout length, and whether their sweep's interval runs (for tests and leak checks). */
export function idleTimersOf(timeoutMs: number): { running: number; isSweeping: boolean } {
  const sweep = sweepsOfClock().get(timeoutMs);
  return { running: sweep?.timers.size ?? 0, isSweeping: sweep?.isSweeping ?? false };
}

function sweepOf(timeoutMs: number): Sweep {
  const sweeps = sweepsOfClock();
  let sweep = sweeps.get(timeoutMs);
  if (sweep === undefined) {
    sweep = new Sweep(timeoutMs);
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
 * Arrivals only note the time; the timers of one timeout length are checked together (Sweep).
 */
export class IdleTimer {
  private lastActivity = Date.now();
  private pausedAt = 0;
  private sweep: Sweep | null;

  constructor(
    private readonly timeoutMs: number,
    private readonly onIdle: () => void,
  ) {
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

  /** The sweep's check: fires once the upstream has been idle, or the client stalled, too long. */
  checkAt(now: number): void {
    const isDue =
      this.pausedAt !== 0 ? now - this.pausedAt >= this.timeoutMs * stalledClientFactor : now - this.lastActivity >= this.timeoutMs;
    if (!isDue || this.sweep === null) return;
    this.stop();
    this.onIdle();
  }
}
