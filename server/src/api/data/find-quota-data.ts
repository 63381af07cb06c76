import type { QuotaDataRow } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { quotaDataAggregatedAtKey } from './aggregate-quota-data.js';
import type { QuotaDataQuery } from './schemas.js';

/** Whose buckets to read: every user's (optionally one username) for admins, or the caller's own. */
export type QuotaDataScope = { isAdmin: true } | { isAdmin: false; userId: number };

/** GET /api/data/ and /api/data/self: hourly buckets in the time range, oldest first. */
export async function findQuotaData(ctx: AppContext, scope: QuotaDataScope, query: QuotaDataQuery): Promise<QuotaDataRow[]> {
  let select = ctx.storage.db.selectFrom('quota_data').selectAll();
  if (scope.isAdmin) {
    if (query.username) select = select.where('username', '=', query.username);
  } else {
    select = select.where('user_id', '=', scope.userId);
  }
  if (query.start_timestamp) select = select.where('created_at', '>=', query.start_timestamp);
  if (query.end_timestamp) select = select.where('created_at', '<=', query.end_timestamp);
  return select.orderBy('created_at').orderBy('id').execute();
}

/**
 * How fresh the buckets are: when the aggregation last ran (epoch seconds, 0 = not yet) and every how
 * many minutes it runs (DataExportInterval). Answered beside `data`, so the list stays a list.
 */
export async function findAggregationState(ctx: AppContext): Promise<{ aggregated_at: number; aggregation_interval_minutes: number }> {
  const row = await ctx.storage.db.selectFrom('options').select('value').where('key', '=', quotaDataAggregatedAtKey).executeTakeFirst();
  const at = Number(row?.value);
  return {
    aggregated_at: Number.isSafeInteger(at) && at > 0 ? at : 0,
    aggregation_interval_minutes: Math.max(1, ctx.options.number('DataExportInterval')),
  };
}
