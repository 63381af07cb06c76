import { Redis } from 'ioredis';
import type { Cache } from './types.js';

const hitScript = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if count == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return count`;

const takeScript = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return 0 end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

const giveBackScript = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

// Leases: a sorted set of lease ids scored by expiry (ms, Redis's own clock so instances agree).
const nowMs = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const acquireLeaseScript = `${nowMs}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

const renewLeaseScript = `${nowMs}
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Redis-backed cache shared by every instance; a second connection carries subscriptions. */
export class RedisCache implements Cache {
  readonly kind = 'redis' as const;
  private readonly client: Redis;
  private subscriber: Redis | null = null;
  private readonly handlers = new Map<string, Array<(message: string) => void>>();

  /** The last time a connection error was reported: one report a minute while Redis stays away. */
  private lastErrorReport = 0;

  constructor(
    url: string,
    private readonly prefix = 'mg:',
    private readonly onConnectionError: (error: Error) => void = (error) => process.emitWarning(`Redis: ${error.message}`),
  ) {
    this.client = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false });
    // Without a listener ioredis writes every failed reconnect to stderr; the client reconnects by itself.
    this.client.on('error', this.reportError);
    this.client.defineCommand('mgHit', { numberOfKeys: 1, lua: hitScript });
    this.client.defineCommand('mgTake', { numberOfKeys: 1, lua: takeScript });
    this.client.defineCommand('mgGiveBack', { numberOfKeys: 1, lua: giveBackScript });
    this.client.defineCommand('mgAcquireLease', { numberOfKeys: 1, lua: acquireLeaseScript });
    this.client.defineCommand('mgRenewLease', { numberOfKeys: 1, lua: renewLeaseScript });
  }

  private readonly reportError = (error: Error): void => {
    const now = Date.now();
    if (now - this.lastErrorReport < 60_000) return;
    this.lastErrorReport = now;
    this.onConnectionError(error);
  };

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async get(key: string): Promise<string | null> {
    return this.client.get(this.prefix + key);
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds) await this.client.set(this.prefix + key, value, 'EX', ttlSeconds);
    else await this.client.set(this.prefix + key, value);
  }

  async del(key: string): Promise<void> {
    await this.client.del(this.prefix + key);
  }

  async hit(key: string, windowSeconds: number, amount = 1): Promise<number> {
    const run = (
      this.client as unknown as {
        mgHit(key: string, amount: number, windowMs: number): Promise<number>;
      }
    ).mgHit;
    return Number(await run.call(this.client, this.prefix + key, amount, windowSeconds * 1000));
  }

  async count(key: string): Promise<number> {
    return Number((await this.client.get(this.prefix + key)) ?? 0);
  }

  async take(key: string, limit: number, windowSeconds: number): Promise<boolean> {
    const client = this.client as unknown as { mgTake(key: string, limit: number, windowMs: number): Promise<number> };
    return Number(await client.mgTake(this.prefix + key, limit, windowSeconds * 1000)) === 1;
  }

  async giveBack(key: string): Promise<void> {
    await (this.client as unknown as { mgGiveBack(key: string): Promise<number> }).mgGiveBack(this.prefix + key);
  }

  async acquireLease(key: string, leaseId: string, limit: number, ttlMs: number): Promise<boolean> {
    const client = this.client as unknown as {
      mgAcquireLease(key: string, leaseId: string, limit: number, ttlMs: number): Promise<number>;
    };
    return Number(await client.mgAcquireLease(this.prefix + key, leaseId, limit, ttlMs)) === 1;
  }

  async releaseLease(key: string, leaseId: string): Promise<void> {
    await this.client.zrem(this.prefix + key, leaseId);
  }

  async renewLeases(leases: ReadonlyArray<{ key: string; leaseId: string }>, ttlMs: number): Promise<void> {
    if (leases.length === 0) return;
    const pipeline = this.client.pipeline() as unknown as {
      mgRenewLease(key: string, leaseId: string, ttlMs: number): void;
      exec(): Promise<unknown>;
    };
    for (const { key, leaseId } of leases) pipeline.mgRenewLease(this.prefix + key, leaseId, ttlMs);
    await pipeline.exec();
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(this.prefix + channel, message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    if (!this.subscriber) {
      this.subscriber = this.client.duplicate();
      this.subscriber.on('error', this.reportError);
      this.subscriber.on('message', (name: string, message: string) => {
        for (const listener of this.handlers.get(name) ?? []) listener(message);
      });
    }
    const name = this.prefix + channel;
    const listeners = this.handlers.get(name) ?? [];
    if (listeners.length === 0) await this.subscriber.subscribe(name);
    listeners.push(handler);
    this.handlers.set(name, listeners);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([this.subscriber?.quit(), this.client.quit()]);
  }
}
