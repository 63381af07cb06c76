/**
 * One cache interface with two backends: memory (one instance) and Redis (several instances
 * sharing rate-limit counts, cached values and change notifications).
 */
export interface Cache {
  readonly kind: 'memory' | 'redis';
  /** Resolves when the backend answers (readiness). */
  ping(): Promise<void>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * Counts one hit in the fixed window `windowSeconds` long that starts with the key's first hit,
   * and returns the count including this hit. Atomic across instances on Redis.
   */
  hit(key: string, windowSeconds: number, amount?: number): Promise<number>;
  /** The current count of a hit window, 0 when none is open. */
  count(key: string): Promise<number>;
  /**
   * Takes one slot of a hit window that admits `limit`: counts it and answers true while the count
   * is below `limit`, answers false (counting nothing) once it is full. Atomic across instances on
   * Redis (one round trip).
   */
  take(key: string, limit: number, windowSeconds: number): Promise<boolean>;
  /** Gives back one slot taken with `take` (the count never goes below 0; no window is opened). */
  giveBack(key: string): Promise<void>;
  /**
   * Takes a lease in the set `key`, which admits `limit` live leases at once: answers true and
   * holds it for `ttlMs` (until released or renewed), or false when the set is full. Expired leases
   * (an instance that died holding them) do not count. Atomic across instances on Redis.
   */
  acquireLease(key: string, leaseId: string, limit: number, ttlMs: number): Promise<boolean>;
  releaseLease(key: string, leaseId: string): Promise<void>;
  /** Extends leases still held (an instance's heartbeat for its long requests). */
  renewLeases(leases: ReadonlyArray<{ key: string; leaseId: string }>, ttlMs: number): Promise<void>;
  /** Broadcasts a message to every instance (this one included). */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}
