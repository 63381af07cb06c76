import type { QuotaDataRow } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
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
