import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Storage } from '../../db/index.js';
import type { NewLog } from '../../db/schema.js';
import type { CachedToken, CachedUser } from '../pipeline/access-cache.js';
import { toStorableRow, type PendingLog } from './log-rows.js';
import { SqliteFlushStatements } from './sqlite-flush.js';
import { forgetHeldShares, giveBackHeldShares } from '../../subscriptions/funding-holds.js';
import {
  noneAside,
  insertInSavepoint,
  safeQuota,
  sumBy,
  walletQuotaOf,
  writeCounters,
  type FlushBatch,
  type BilledShare,
} from './flush-writes.js';

const logBatchSize = 100;
/**
 * SQLite: log rows inserted between two turns of the event loop in a flush. A second's rows at
 * 10,000 calls per second take 35–65 ms to insert, which in one piece held up every call in flight
 * (the bench's p99); 500 take 2–4 ms. The transaction stays one: other queries wait for Kysely's
 * one connection as before, and nothing else writes through the raw handle.
 */
const logSliceRows = 500;

export type { PendingLog } from './log-rows.js';

/** A log row the database refused in a flush, left out of the ledger (see writeIsolated). */
export interface SetAsideLog {
  userId: number;
  tokenId: number;
  channelId: number;
  quota: number;
  /** What the user's wallet paid of `quota` (the rest a subscription paid: `other.subscription_quota`). */
  walletQuota: number;
  row: NewLog | null;
}

/**
 * Write-behind for the hot path. Requests add deltas in memory; flush() writes them with atomic
 * `UPDATE ... SET x = x + ?` and inserts log rows in batches, all in one transaction, at least every
 * BATCH_UPDATE_INTERVAL_MS and at shutdown. When that transaction fails, the rows are written one
 * by one (writeIsolated): a row the database refuses is set aside with its quota, the rest is
 * written. A flush that fails even so (database down) keeps its deltas for the next one.
 * Reloads of cached rows run through exclusive() so they never interleave with a flush.
 */
export class UsageWriter {
  private dirtyUsers = new Set<CachedUser>();
  private dirtyTokens = new Set<CachedToken>();
  private channelQuota = new Map<number, number>();
  private logs: PendingLog[] = [];
  private tokenStatus = new Map<number, number>();
  /** `funding_holds` rows of billed subscription shares, by their log rows: dropped when those are written. */
  private billedShares: BilledShare[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private sqliteStatements: SqliteFlushStatements | null = null;

  /** Log rows set aside by flushes since start (refused by the database; reported through onRowSetAside). */
  setAsideCount = 0;

  /** Told, after a flush committed, which users' spending it wrote (their `quota` is current then). */
  onUsersWritten: ((users: CachedUser[]) => void) | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly onError: (error: unknown) => void,
    private readonly onRowSetAside: (error: unknown, log: SetAsideLog) => void = () => undefined,
  ) {}

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

  /**
   * Records one settled request: quota spent by user, token and channel, and its log row. The user's
   * wallet pays `walletQuota` of it (less than `quota` when a subscription paid the rest: funding-settle.ts);
   * `shareHoldId` is that subscription share's row, dropped in the transaction that writes the log row.
   */
  record(
    user: CachedUser,
    token: CachedToken | null,
    channelId: number,
    quota: number,
    log: PendingLog | null,
    walletQuota = quota,
    shareHoldId: number | null = null,
  ): void {
    if (shareHoldId !== null) this.billedShares.push({ id: shareHoldId, log });
    user.pendingQuota += walletQuota;
    user.pendingCount += 1;
    this.dirtyUsers.add(user);
    if (token) {
      token.pendingQuota += quota;
      this.dirtyTokens.add(token);
    }
    if (channelId > 0 && quota !== 0) this.channelQuota.set(channelId, (this.channelQuota.get(channelId) ?? 0) + quota);
    if (log) this.logs.push(log);
  }

  /**
   * Queues a log row that moves no quota (an error log, type 5): written by the next flush with the
   * others, no counter touched, so the counters still equal the sum of the consume rows.
   */
  queueLog(log: PendingLog): void {
    this.logs.push(log);
  }

  /** Queues a token status change (3 expired, 4 exhausted) for the next flush. */
  setTokenStatus(tokenId: number, status: number): void {
    this.tokenStatus.set(tokenId, status);
  }

  get pendingLogCount(): number {
    return this.logs.length;
  }

  /** When the last flush committed (ms), and how many failed since start (metrics). */
  lastFlushedAt = Date.now();
  flushFailures = 0;

  flush(): Promise<void> {
    return this.exclusive(() => this.writePending()).then(
      () => {
        this.lastFlushedAt = Date.now();
      },
      (error: unknown) => {
        this.flushFailures += 1;
        throw error;
      },
    );
  }

  private async writePending(): Promise<void> {
    if (
      this.dirtyUsers.size === 0 &&
      this.dirtyTokens.size === 0 &&
      this.channelQuota.size === 0 &&
      this.logs.length === 0 &&
      this.tokenStatus.size === 0 &&
      this.billedShares.length === 0
    )
      return;
    const batch: FlushBatch = {
      users: [...this.dirtyUsers].map((user) => ({ user, quota: user.pendingQuota, count: user.pendingCount })),
      tokens: [...this.dirtyTokens].map((token) => ({ token, quota: token.pendingQuota })),
      channels: this.channelQuota,
      logs: this.logs,
      statuses: this.tokenStatus,
      shares: this.billedShares,
    };
    this.billedShares = [];
    this.dirtyUsers = new Set();
    this.dirtyTokens = new Set();
    this.channelQuota = new Map();
    this.logs = [];
    this.tokenStatus = new Map();
    // Moving the snapshot out of pending and into base happens together below; until the
    // transaction commits both stay counted as pending.
    let setAside: SetAsideLog[] = [];
    try {
      try {
        await this.writeBatch(batch);
      } catch (error) {
        // One bad log row must not hold back the rest: write them one by one, setting aside what
        // the database refuses. A database that is down fails here too, and all is kept.
        if (batch.logs.length === 0) throw error;
        setAside = await this.writeIsolated(batch);
      }
    } catch (error) {
      // Keep everything for the next flush: nothing of this transaction was committed.
      for (const { user } of batch.users) this.dirtyUsers.add(user);
      for (const { token } of batch.tokens) this.dirtyTokens.add(token);
      for (const [id, quota] of batch.channels) this.channelQuota.set(id, (this.channelQuota.get(id) ?? 0) + quota);
      for (const [id, status] of batch.statuses) if (!this.tokenStatus.has(id)) this.tokenStatus.set(id, status);
      this.logs = batch.logs.concat(this.logs);
      this.billedShares = batch.shares.concat(this.billedShares);
      throw error;
    }
    const userAside = sumBy(
      setAside,
      (item) => item.userId,
      (item) => item.walletQuota,
    );
    const tokenAside = sumBy(setAside, (item) => item.tokenId);
    for (const { user, quota, count } of batch.users) {
      const written = quota - (userAside.get(user.id) ?? 0);
      user.pendingQuota -= quota;
      user.pendingCount -= count;
      user.quota -= written;
      user.usedQuota += written;
    }
    for (const { token, quota } of batch.tokens) {
      const written = quota - (tokenAside.get(token.id) ?? 0);
      token.pendingQuota -= quota;
      if (!token.isUnlimited) token.remainQuota -= written;
      token.usedQuota += written;
    }
    if (this.onUsersWritten && batch.users.length > 0) this.onUsersWritten(batch.users.map(({ user }) => user));
  }

  /** The fast flush: one transaction, counters then log rows in multi-row inserts. */
  private async writeBatch({ users, tokens, channels, logs, statuses, shares }: FlushBatch): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const { sqlite } = this.storage;
    await this.storage.db.transaction().execute(async (trx) => {
      if (sqlite) {
        // SQLite: cached prepared statements on the connection this transaction holds.
        const statements = (this.sqliteStatements ??= new SqliteFlushStatements(sqlite, logBatchSize));
        for (const { user, quota, count } of users) {
          if (quota === 0 && count === 0) continue;
          statements.user.run(quota, quota, count, user.id);
        }
        for (const { token, quota } of tokens) {
          if (token.isUnlimited) statements.unlimitedToken.run(quota, now, token.id);
          else statements.token.run(quota, quota, now, token.id);
        }
        for (const [id, quota] of channels) statements.channel.run(quota, id);
        for (const [id, status] of statuses) statements.tokenStatus.run(status, id);
        for (let from = 0; from < logs.length; from += logSliceRows) {
          if (from > 0) await nextTurn();
          statements.insertLogs(logs, from, Math.min(logs.length, from + logSliceRows));
        }
        await forgetHeldShares(
          trx,
          shares.map((share) => share.id),
        );
        return;
      }
      await forgetHeldShares(
        trx,
        shares.map((share) => share.id),
      );
      await writeCounters(trx, users, tokens, channels, statuses, now, noneAside);
      for (let i = 0; i < logs.length; i += logBatchSize) {
        await trx
          .insertInto('logs')
          .values(logs.slice(i, i + logBatchSize).map(toStorableRow))
          .execute();
      }
    });
  }

  /**
   * The slow flush after a failed batch, in one transaction: log rows are inserted 100 at a time, each
   * batch inside a savepoint, and a refused batch again row by row; a row that cannot be built or
   * that the database refuses is rolled back to its savepoint, reported and set aside, and its quota
   * is left out of the counters of its user, token and channel, so the counters always equal the sum
   * of the log rows written. Returns the rows set aside. Counter updates are not isolated: a failing one fails the flush (kept for the next).
   */
  private async writeIsolated(batch: FlushBatch): Promise<SetAsideLog[]> {
    const now = Math.floor(Date.now() / 1000);
    const setAside: SetAsideLog[] = [];
    await this.storage.db.transaction().execute(async (trx) => {
      setAside.length = 0;
      const rows: NewLog[] = [];
      const sources = new Map<NewLog, PendingLog>();
      const refusedLogs = new Set<PendingLog>();
      for (const log of batch.logs) {
        try {
          const row = toStorableRow(log);
          rows.push(row);
          sources.set(row, log);
        } catch (error) {
          // A record that cannot build its row: nothing to attribute, its quota stays counted.
          const item = { userId: 0, tokenId: 0, channelId: 0, quota: 0, walletQuota: 0, row: null };
          setAside.push(item);
          this.onRowSetAside(error, item);
        }
      }
      // Batches of 100 in a savepoint each; only a refused batch is retried row by row.
      for (let i = 0; i < rows.length; i += logBatchSize) {
        const chunk = rows.slice(i, i + logBatchSize);
        if ((await insertInSavepoint(trx, chunk)) === null) continue;
        for (const row of chunk) {
          const refused = await insertInSavepoint(trx, [row]);
          if (refused === null) continue;
          const item = {
            userId: Number(row.user_id ?? 0),
            tokenId: Number(row.token_id ?? 0),
            channelId: Number(row.channel_id ?? 0),
            quota: safeQuota(row.quota),
            walletQuota: walletQuotaOf(row),
            row,
          };
          setAside.push(item);
          refusedLogs.add(sources.get(row)!);
          this.onRowSetAside(refused.error, item);
        }
      }
      await writeCounters(trx, batch.users, batch.tokens, batch.channels, batch.statuses, now, {
        users: sumBy(
          setAside,
          (item) => item.userId,
          (item) => item.walletQuota,
        ),
        tokens: sumBy(setAside, (item) => item.tokenId),
        channels: sumBy(setAside, (item) => item.channelId),
      });
      // A refused row bills nothing: its wallet part is left out above, its subscription share goes back.
      const refusedShares = batch.shares.filter((share) => share.log !== null && refusedLogs.has(share.log));
      await giveBackHeldShares(
        trx,
        refusedShares.map((share) => share.id),
      );
      await forgetHeldShares(
        trx,
        batch.shares.filter((share) => !refusedShares.includes(share)).map((share) => share.id),
      );
    });
    this.setAsideCount += setAside.length;
    return setAside;
  }
}
