import { sql } from 'kysely';
import type { Storage } from '../../db/index.js';
import type { NewLog } from '../../db/schema.js';
import type { CachedToken, CachedUser } from './access-cache.js';

const logBatchSize = 100;

/**
 * Write-behind for the hot path. Requests add deltas in memory; flush() writes them with atomic
 * `UPDATE ... SET x = x + ?` and inserts log rows in batches, all in one transaction, at least every
 * BATCH_UPDATE_INTERVAL_MS and at shutdown. A failed flush keeps its deltas for the next one.
 * Reloads of cached rows run through exclusive() so they never interleave with a flush.
 */
export class UsageWriter {
  private dirtyUsers = new Set<CachedUser>();
  private dirtyTokens = new Set<CachedToken>();
  private channelQuota = new Map<number, number>();
  private logs: NewLog[] = [];
  private tokenStatus = new Map<number, number>();
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly storage: Storage, private readonly onError: (error: unknown) => void) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush().catch(this.onError), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Runs `task` after every queued flush or reload and before the next. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Records one settled request: quota spent by user, token and channel, and its log row. */
  record(user: CachedUser, token: CachedToken | null, channelId: number, quota: number, log: NewLog | null): void {
    user.pendingQuota += quota;
    user.pendingCount += 1;
    this.dirtyUsers.add(user);
    if (token) {
      token.pendingQuota += quota;
      this.dirtyTokens.add(token);
    }
    if (channelId > 0 && quota !== 0) this.channelQuota.set(channelId, (this.channelQuota.get(channelId) ?? 0) + quota);
    if (log) this.logs.push(log);
  }

  /** Queues a token status change (3 expired, 4 exhausted) for the next flush. */
  setTokenStatus(tokenId: number, status: number): void {
    this.tokenStatus.set(tokenId, status);
  }

  get pendingLogCount(): number {
    return this.logs.length;
  }

  flush(): Promise<void> {
    return this.exclusive(() => this.writePending());
  }

  private async writePending(): Promise<void> {
    if (this.dirtyUsers.size === 0 && this.dirtyTokens.size === 0 && this.channelQuota.size === 0 && this.logs.length === 0 && this.tokenStatus.size === 0) return;
    const users = [...this.dirtyUsers].map((user) => ({ user, quota: user.pendingQuota, count: user.pendingCount }));
    const tokens = [...this.dirtyTokens].map((token) => ({ token, quota: token.pendingQuota }));
    const channels = this.channelQuota;
    const logs = this.logs;
    const statuses = this.tokenStatus;
    this.dirtyUsers = new Set();
    this.dirtyTokens = new Set();
    this.channelQuota = new Map();
    this.logs = [];
    this.tokenStatus = new Map();
    // Moving the snapshot out of pending and into base happens together below; until the
    // transaction commits both stay counted as pending.
    try {
      const now = Math.floor(Date.now() / 1000);
      await this.storage.db.transaction().execute(async (trx) => {
        for (const { user, quota, count } of users) {
          if (quota === 0 && count === 0) continue;
          await trx.updateTable('users')
            .set({ quota: sql`quota - ${quota}`, used_quota: sql`used_quota + ${quota}`, request_count: sql`request_count + ${count}` })
            .where('id', '=', user.id).execute();
        }
        for (const { token, quota } of tokens) {
          const update = token.isUnlimited
            ? { used_quota: sql<number>`used_quota + ${quota}`, accessed_time: now }
            : { remain_quota: sql<number>`remain_quota - ${quota}`, used_quota: sql<number>`used_quota + ${quota}`, accessed_time: now };
          await trx.updateTable('tokens').set(update).where('id', '=', token.id).execute();
        }
        for (const [id, quota] of channels) {
          await trx.updateTable('channels').set({ used_quota: sql`used_quota + ${quota}` }).where('id', '=', id).execute();
        }
        for (const [id, status] of statuses) {
          await trx.updateTable('tokens').set({ status }).where('id', '=', id).execute();
        }
        for (let i = 0; i < logs.length; i += logBatchSize) {
          await trx.insertInto('logs').values(logs.slice(i, i + logBatchSize)).execute();
        }
      });
    } catch (error) {
      // Keep everything for the next flush: nothing of this transaction was committed.
      for (const { user } of users) this.dirtyUsers.add(user);
      for (const { token } of tokens) this.dirtyTokens.add(token);
      for (const [id, quota] of channels) this.channelQuota.set(id, (this.channelQuota.get(id) ?? 0) + quota);
      for (const [id, status] of statuses) if (!this.tokenStatus.has(id)) this.tokenStatus.set(id, status);
      this.logs = logs.concat(this.logs);
      throw error;
    }
    for (const { user, quota, count } of users) {
      user.pendingQuota -= quota;
      user.pendingCount -= count;
      user.quota -= quota;
      user.usedQuota += quota;
    }
    for (const { token, quota } of tokens) {
      token.pendingQuota -= quota;
      if (!token.isUnlimited) token.remainQuota -= quota;
      token.usedQuota += quota;
    }
  }
}
