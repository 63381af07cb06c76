import { EventEmitter } from 'node:events';
import type { Cache } from './types.js';

interface Entry {
  value: string;
  expiresAt: number;
}

/** In-process cache for a single instance. Expired entries are swept once a minute. */
export class MemoryCache implements Cache {
  readonly kind = 'memory' as const;
  private readonly values = new Map<string, Entry>();
  private readonly events = new EventEmitter();
  private readonly leases = new Map<string, Map<string, number>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.events.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async ping(): Promise<void> {}

  private live(key: string): Entry | undefined {
    const entry = this.values.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.values.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.values) if (entry.expiresAt <= now) this.values.delete(key);
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    const expiresAt = ttlSeconds ? Date.now() + ttlSeconds * 1000 : Number.POSITIVE_INFINITY;
    this.values.set(key, { value, expiresAt });
  }

  async del(key: string): Promise<void> {
    this.values.delete(key);
  }

  async hit(key: string, windowSeconds: number, amount = 1): Promise<number> {
    const entry = this.live(key);
    if (!entry) {
      this.values.set(key, { value: String(amount), expiresAt: Date.now() + windowSeconds * 1000 });
      return amount;
    }
    const next = Number(entry.value) + amount;
    entry.value = String(next);
    return next;
  }

  async count(key: string): Promise<number> {
    return Number(this.live(key)?.value ?? 0);
  }

  async take(key: string, limit: number, windowSeconds: number): Promise<boolean> {
    if (Number(this.live(key)?.value ?? 0) >= limit) return false;
    await this.hit(key, windowSeconds);
    return true;
  }

  async giveBack(key: string): Promise<void> {
    const entry = this.live(key);
    if (entry && Number(entry.value) > 0) entry.value = String(Number(entry.value) - 1);
  }

  async acquireLease(key: string, leaseId: string, limit: number, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    let set = this.leases.get(key);
    if (!set) this.leases.set(key, (set = new Map()));
    for (const [id, expiresAt] of set) if (expiresAt <= now) set.delete(id);
    if (set.size >= limit) return false;
    set.set(leaseId, now + ttlMs);
    return true;
  }

  async releaseLease(key: string, leaseId: string): Promise<void> {
    const set = this.leases.get(key);
    if (!set) return;
    set.delete(leaseId);
    if (set.size === 0) this.leases.delete(key);
  }

  async renewLeases(leases: ReadonlyArray<{ key: string; leaseId: string }>, ttlMs: number): Promise<void> {
    const expiresAt = Date.now() + ttlMs;
    for (const { key, leaseId } of leases) {
      const set = this.leases.get(key);
      if (set?.has(leaseId)) set.set(leaseId, expiresAt);
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    this.events.emit(channel, message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    this.events.on(channel, handler);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.events.removeAllListeners();
    this.values.clear();
  }
}
