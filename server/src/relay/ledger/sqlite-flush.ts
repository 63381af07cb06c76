import type BetterSqlite3 from 'better-sqlite3';
import { logColumns, putLogValues, toStorableRow, type PendingLog } from './log-rows.js';

const logInsertHead = `insert into "logs" (${logColumns.map((name) => `"${name}"`).join(', ')}) values `;
const logTuple = `(${logColumns.map(() => '?').join(', ')})`;

/**
 * SQLite statements of the flush, prepared once per handle (Kysely prepares every query anew):
 * the counter updates and one multi-row log insert per batch size. Run only inside a Kysely
 * transaction callback, which holds SQLite's one connection and its BEGIN.
 */
export class SqliteFlushStatements {
  readonly user: BetterSqlite3.Statement;
  readonly token: BetterSqlite3.Statement;
  readonly unlimitedToken: BetterSqlite3.Statement;
  readonly channel: BetterSqlite3.Statement;
  readonly tokenStatus: BetterSqlite3.Statement;
  private readonly inserts = new Map<number, BetterSqlite3.Statement>();

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    private readonly logBatchSize: number,
  ) {
    this.user = sqlite.prepare(
      'update "users" set "quota" = quota - ?, "used_quota" = used_quota + ?, "request_count" = request_count + ? where "id" = ?',
    );
    this.token = sqlite.prepare(
      'update "tokens" set "remain_quota" = remain_quota - ?, "used_quota" = used_quota + ?, "accessed_time" = ? where "id" = ?',
    );
    this.unlimitedToken = sqlite.prepare('update "tokens" set "used_quota" = used_quota + ?, "accessed_time" = ? where "id" = ?');
    this.channel = sqlite.prepare('update "channels" set "used_quota" = used_quota + ? where "id" = ?');
    this.tokenStatus = sqlite.prepare('update "tokens" set "status" = ? where "id" = ?');
  }

  /** Inserts logs[from, to) in multi-row statements of the batch size. */
  insertLogs(logs: PendingLog[], from = 0, to = logs.length): void {
    for (let i = from; i < to; i += this.logBatchSize) {
      const count = Math.min(this.logBatchSize, to - i);
      let statement = this.inserts.get(count);
      if (!statement) {
        statement = this.sqlite.prepare(logInsertHead + new Array<string>(count).fill(logTuple).join(', '));
        this.inserts.set(count, statement);
      }
      const values = new Array<string | number>(count * logColumns.length);
      let at = 0;
      for (let j = i; j < i + count; j += 1) at = putLogValues(values, at, toStorableRow(logs[j]!));
      statement.run(values);
    }
  }
}
