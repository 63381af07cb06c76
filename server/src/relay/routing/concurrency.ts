import { randomBytes } from 'node:crypto';
import type { Cache } from '../../cache/types.js';

/** A slot held while a request is in flight; release is idempotent. */
export interface Lease {
  release(): void;
}

export const freeLease: Lease = { release() {} };

/** A lease lives this long unless renewed: an instance that dies frees its slots within it. */
const leaseTtlMs = 60_000;
const renewEveryMs = 20_000;
/** How often a queued request looks again for slots other instances freed (local releases wake it at once). */
const pollMs = 100;

/**
 * Concurrency limits held across instances: with Redis a slot is a lease in a cache set that admits
 * `limit` at once; leases this instance holds are renewed while their requests run, so a long
 * stream keeps its slot and a crashed instance's slots expire. On one instance (no Redis) a slot is
 * a count in this process, taken and given back without a promise: nothing outlives the process,
 * and every request gives its slot back (release runs in a finally).
 */
export class ConcurrencyLimiter {
  private readonly held = new Map<string, string>();
  private readonly waiters = new Set<() => void>();
  private readonly queued = new Map<string, number>();
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;
  private heartbeat: NodeJS.Timeout | null = null;

  /** One instance: slots taken per key, in this process (null with Redis). */
  private readonly local: Map<string, number> | null;

  constructor(
    private readonly cache: Cache,
    private readonly onError: (error: unknown) => void,
  ) {
    this.local = cache.kind === 'memory' ? new Map() : null;
  }

  /**
   * A slot of `key` when one is free, else null; at once on one instance, a promise through Redis.
   * A cache failure admits the request (limits are protection, not a reason to fail traffic) and is
   * reported.
   */
  tryAcquire(key: string, limit: number): Lease | null | Promise<Lease | null> {
    if (this.local) {
      const taken = this.local.get(key) ?? 0;
      if (taken >= limit) return null;
      this.local.set(key, taken + 1);
      return this.localLease(this.local, key);
    }
    const setKey = `conc:${key}`;
    const leaseId = `${this.instance}:${(this.sequence += 1)}`;
    return this.cache.acquireLease(setKey, leaseId, limit, leaseTtlMs).then(
      (isTaken) => (isTaken ? this.hold(setKey, leaseId) : null),
      (error: unknown) => {
        this.onError(error);
        return freeLease;
      },
    );
  }

  private localLease(local: Map<string, number>, key: string): Lease {
    let isReleased = false;
    return {
      release: () => {
        if (isReleased) return;
        isReleased = true;
        const left = (local.get(key) ?? 1) - 1;
        if (left > 0) local.set(key, left);
        else local.delete(key);
        this.wake();
      },
    };
  }

  private hold(setKey: string, leaseId: string): Lease {
    this.held.set(leaseId, setKey);
    this.startHeartbeat();
    let isReleased = false;
    return {
      release: () => {
        if (isReleased) return;
        isReleased = true;
        this.held.delete(leaseId);
        this.cache
          .releaseLease(setKey, leaseId)
          .catch(this.onError)
          .finally(() => this.wake());
      },
    };
  }

  /**
   * Waits for a slot of `key` until `deadline` (ms), at most `maxQueued` requests of this instance
   * waiting per key. Null when the queue is full, the deadline passed or `isCancelled()` became true.
   */
  async acquire(key: string, limit: number, wait: { deadline: number; maxQueued: number; isCancelled(): boolean }): Promise<Lease | null> {
    const first = await this.tryAcquire(key, limit);
    if (first || Date.now() >= wait.deadline) return first;
    const waiting = this.queued.get(key) ?? 0;
    if (waiting >= wait.maxQueued) return null;
    this.queued.set(key, waiting + 1);
    try {
      while (Date.now() < wait.deadline && !wait.isCancelled()) {
        await this.nextChance(Math.min(pollMs, wait.deadline - Date.now()));
        const lease = await this.tryAcquire(key, limit);
        if (lease) return lease;
      }
      return null;
    } finally {
      const left = (this.queued.get(key) ?? 1) - 1;
      if (left > 0) this.queued.set(key, left);
      else this.queued.delete(key);
    }
  }

  /** Resolves when this instance frees a slot, or after `ms`. */
  nextChance(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.waiters.add(done);
    });
  }

  private wake(): void {
    if (this.waiters.size === 0) return;
    for (const waiter of [...this.waiters]) waiter();
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      if (this.held.size === 0) {
        clearInterval(this.heartbeat!);
        this.heartbeat = null;
        return;
      }
      const leases = [...this.held].map(([leaseId, key]) => ({ key, leaseId }));
      this.cache.renewLeases(leases, leaseTtlMs).catch(this.onError);
    }, renewEveryMs);
    this.heartbeat.unref();
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.wake();
  }
}
