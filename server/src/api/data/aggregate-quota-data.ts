import { LogType } from '@modelgate/shared';
import { sql } from 'kysely';
import type { Db, Storage } from '../../db/index.js';
import type { AppContext } from '../../context.js';

/** The last log id folded into quota_data; kept in the options table under a key the registry never lists. */
export const quotaDataWatermarkKey = 'internal.quota_data.last_log_id';
/** When the last run finished (epoch seconds), so every instance's dashboard can say how fresh it is. */
export const quotaDataAggregatedAtKey = 'internal.quota_data.aggregated_at';

export interface AggregateOptions {
  /**
   * Logs younger than this are left for the next run, so a write that committed a lower id later
   * (several instances flushing at once) is not skipped. Default 10 s.
   */
  settleSeconds?: number;
  batchSize?: number;
  now?: number;
}

const hourStart = (seconds: number) => seconds - (seconds % 3600);

interface Bucket {
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  count: number;
  quota: number;
  token_used: number;
}

async function ensureWatermark(storage: Storage, trx: Db): Promise<void> {
  const row = { key: quotaDataWatermarkKey, value: '0' };
  if (storage.kind === 'mysql') await trx.insertInto('options').ignore().values(row).execute();
  else
    await trx
      .insertInto('options')
      .values(row)
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
}

async function addBucket(storage: Storage, trx: Db, bucket: Bucket): Promise<void> {
  const insert = trx.insertInto('quota_data').values(bucket);
  const add = (column: 'count' | 'quota' | 'token_used', other: string) =>
    sql<number>`${sql.ref(`quota_data.${column}`)} + ${sql.raw(other)}`;
  if (storage.kind === 'mysql') {
    await insert
      .onDuplicateKeyUpdate({
        count: sql`${sql.ref('count')} + VALUES(${sql.ref('count')})`,
        quota: sql`${sql.ref('quota')} + VALUES(${sql.ref('quota')})`,
        token_used: sql`${sql.ref('token_used')} + VALUES(${sql.ref('token_used')})`,
        username: sql`VALUES(${sql.ref('username')})`,
      })
      .execute();
    return;
  }
  await insert
    .onConflict((oc) =>
      oc.columns(['user_id', 'model_name', 'created_at']).doUpdateSet({
        count: add('count', 'excluded.count'),
        quota: add('quota', 'excluded.quota'),
        token_used: add('token_used', 'excluded.token_used'),
        username: sql`excluded.username`,
      }),
    )
    .execute();
}

async function recordRun(storage: Storage, at: number): Promise<void> {
  const value = String(at);
  const insert = storage.db.insertInto('options').values({ key: quotaDataAggregatedAtKey, value });
  if (storage.kind === 'mysql') await insert.onDuplicateKeyUpdate({ value }).execute();
  else await insert.onConflict((oc) => oc.column('key').doUpdateSet({ value })).execute();
}

/** Folds one batch of consumption logs after the watermark into hourly buckets. */
async function aggregateBatch(ctx: AppContext, settleBefore: number, batchSize: number): Promise<{ folded: number; hasMore: boolean }> {
  const storage = ctx.storage;
  return storage.db.transaction().execute(async (trx) => {
    await ensureWatermark(storage, trx);
    let watermarkQuery = trx.selectFrom('options').select('value').where('key', '=', quotaDataWatermarkKey);
    if (storage.kind !== 'sqlite') watermarkQuery = watermarkQuery.forUpdate();
    const last = Number((await watermarkQuery.executeTakeFirst())?.value ?? 0) || 0;
    const rows = await trx
      .selectFrom('logs')
      .select(['id', 'user_id', 'username', 'model_name', 'created_at', 'quota', 'prompt_tokens', 'completion_tokens'])
      .where('id', '>', last)
      .where('type', '=', LogType.consume)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    const unsettled = rows.findIndex((row) => row.created_at >= settleBefore);
    const settled = unsettled < 0 ? rows : rows.slice(0, unsettled);
    if (settled.length === 0) return { folded: 0, hasMore: false };
    const buckets = new Map<string, Bucket>();
    for (const row of settled) {
      const createdAt = hourStart(row.created_at);
      const key = `${row.user_id}\u0000${row.model_name}\u0000${createdAt}`;
      const bucket = buckets.get(key) ?? {
        user_id: row.user_id,
        username: row.username,
        model_name: row.model_name,
        created_at: createdAt,
        count: 0,
        quota: 0,
        token_used: 0,
      };
      bucket.count += 1;
      bucket.quota += row.quota;
      bucket.token_used += row.prompt_tokens + row.completion_tokens;
      bucket.username = row.username;
      buckets.set(key, bucket);
    }
    for (const bucket of buckets.values()) await addBucket(storage, trx, bucket);
    const lastId = settled[settled.length - 1]!.id;
    await trx
      .updateTable('options')
      .set({ value: String(lastId) })
      .where('key', '=', quotaDataWatermarkKey)
      .execute();
    return { folded: settled.length, hasMore: unsettled < 0 && rows.length === batchSize };
  });
}

const runs = new WeakMap<AppContext, Promise<unknown>>();

/**
 * Folds every settled consumption log (type 2) not yet aggregated into hourly quota_data buckets
 * (user, model, hour): each log is counted exactly once because the buckets and the watermark
 * change in one transaction. Runs of one instance are serialized; a finished run records its time
 * (quotaDataAggregatedAtKey). Returns how many logs were folded.
 */
export async function aggregateQuotaData(ctx: AppContext, options: AggregateOptions = {}): Promise<number> {
  const previous = runs.get(ctx) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      const now = options.now ?? Math.floor(Date.now() / 1000);
      const settleBefore = now - (options.settleSeconds ?? 10) + 1;
      const batchSize = options.batchSize ?? 5000;
      let total = 0;
      for (;;) {
        const { folded, hasMore } = await aggregateBatch(ctx, settleBefore, batchSize);
        total += folded;
        if (!hasMore) break;
      }
      await recordRun(ctx.storage, now);
      return total;
    });
  runs.set(ctx, run);
  return run;
}
