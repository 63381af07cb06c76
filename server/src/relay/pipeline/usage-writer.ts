import type BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import type { Storage } from '../../db/index.js';
import type { NewLog } from '../../db/schema.js';
import type { CachedToken, CachedUser } from './access-cache.js';

const logBatchSize = 100;

/** A queued consume log: the row, or a record that builds it at flush time (settle's ConsumeLogRecord). */
export type PendingLog = NewLog | { toRow(): NewLog };

const toRow = (log: PendingLog): NewLog => ('toRow' in log && typeof log.toRow === 'function' ? log.toRow() : (log as NewLog));

/** The logs columns in insert order (putLogValues writes them in this order). */
const logColumns = [
  'user_id', 'created_at', 'type', 'content', 'username', 'token_name', 'model_name', 'quota', 'prompt_tokens',
  'completion_tokens', 'use_time', 'is_stream', 'channel_id', 'token_id', 'group', 'ip', 'other',
] as const satisfies ReadonlyArray<keyof NewLog>;
const logInsertHead = `insert into "logs" (${logColumns.map((name) => `"${name}"`).join(', ')}) values `;
const logTuple = `(${logColumns.map(() => '?').join(', ')})`;

/** Writes a row's values in logColumns order at `at` (the migration's default for a left-out column); returns the next index. */
function putLogValues(values: Array<string | number>, at: number, row: NewLog): number {
  values[at] = row.user_id ?? 0;
  values[at + 1] = row.created_at;
  values[at + 2] = row.type;
  values[at + 3] = row.content ?? '';
  values[at + 4] = row.username ?? '';
  values[at + 5] = row.token_name ?? '';
  values[at + 6] = row.model_name ?? '';
  values[at + 7] = row.quota ?? 0;
  values[at + 8] = row.prompt_tokens ?? 0;
  values[at + 9] = row.completion_tokens ?? 0;
  values[at + 10] = row.use_time ?? 0;
  values[at + 11] = row.is_stream ?? 0;
  values[at + 12] = row.channel_id ?? 0;
  values[at + 13] = row.token_id ?? 0;
  values[at + 14] = row.group ?? '';
  values[at + 15] = row.ip ?? '';
  values[at + 16] = row.other ?? '';
  return at + 17;
}

/**
 * SQLite statements of the flush, prepared once per handle (Kysely prepares every query anew):
 * the counter updates and one multi-row log insert per batch size. Run only inside a Kysely
 * transaction callback, which holds SQLite's one connection and its BEGIN.
 */
class SqliteFlushStatements {
  readonly user: BetterSqlite3.Statement;
  readonly token: BetterSqlite3.Statement;
  readonly unlimitedToken: BetterSqlite3.Statement;
  readonly channel: BetterSqlite3.Statement;
  readonly tokenStatus: BetterSqlite3.Statement;
  private readonly inserts = new Map<number, BetterSqlite3.Statement>();

  constructor(private readonly sqlite: BetterSqlite3.Database) {
    this.user = sqlite.prepare('update "users" set "quota" = quota - ?, "used_quota" = used_quota + ?, "request_count" = request_count + ? where "id" = ?');
    this.token = sqlite.prepare('update "tokens" set "remain_quota" = remain_quota - ?, "used_quota" = used_quota + ?, "accessed_time" = ? where "id" = ?');
    this.unlimitedToken = sqlite.prepare('update "tokens" set "used_quota" = used_quota + ?, "accessed_time" = ? where "id" = ?');
    this.channel = sqlite.prepare('update "channels" set "used_quota" = used_quota + ? where "id" = ?');
    this.tokenStatus = sqlite.prepare('update "tokens" set "status" = ? where "id" = ?');
  }

  insertLogs(logs: PendingLog[]): void {
    for (let i = 0; i < logs.length; i += logBatchSize) {
      const count = Math.min(logBatchSize, logs.length - i);
      let statement = this.inserts.get(count);
      if (!statement) {
        statement = this.sqlite.prepare(logInsertHead + new Array<string>(count).fill(logTuple).join(', '));
        this.inserts.set(count, statement);
      }
      const values = new Array<string | number>(count * logColumns.length);
      let at = 0;
      for (let j = i; j < i + count; j += 1) at = putLogValues(values, at, toRow(logs[j]!));
      statement.run(values);
    }
  }
}

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
  private logs: PendingLog[] = [];
  private tokenStatus = new Map<number, number>();
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private sqliteStatements: SqliteFlushStatements | null = null;

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
  record(user: CachedUser, token: CachedToken | null, channelId: number, quota: number, log: PendingLog | null): void {
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
      const { sqlite } = this.storage;
      await this.storage.db.transaction().execute(async (trx) => {
        if (sqlite) {
          // SQLite: cached prepared statements on the connection this transaction holds.
          const statements = (this.sqliteStatements ??= new SqliteFlushStatements(sqlite));
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
          statements.insertLogs(logs);
          return;
        }
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
          await trx.insertInto('logs').values(logs.slice(i, i + logBatchSize).map(toRow)).execute();
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
