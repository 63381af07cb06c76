import type { AppContext } from '../../context.js';
import type { TokenRow } from '../../db/schema.js';
import type { Language } from '../../lib/i18n/index.js';
import { userLogView } from '../logs/find-logs.js';
import type { TokenLogQuery } from './schemas.js';

/** The most recent rows GET /api/log/token answers without paging (new-api's MaxRecentItems). */
export const recentTokenLogs = 100;

/**
 * GET /api/log/token: the token's own log rows, newest first, as their owner sees them (no channel, no
 * admin_info). Without `p`/`page_size` the latest 100 as a list, as new-api answers; with them a page
 * ({items, total, page, page_size}), as its newer versions do.
 */
export async function findTokenLogs(ctx: AppContext, token: TokenRow, query: TokenLogQuery, language: Language) {
  const db = ctx.storage.db;
  const own = db.selectFrom('logs').where('token_id', '=', token.id).where('user_id', '=', token.user_id);
  if (query.p === undefined && query.page_size === undefined) {
    const rows = await own.selectAll().orderBy('id', 'desc').limit(recentTokenLogs).execute();
    return rows.map((row) => userLogView(row, language));
  }
  const page = query.p ?? 1;
  const size = query.page_size ?? 10;
  const [rows, count] = await Promise.all([
    own
      .selectAll()
      .orderBy('id', 'desc')
      .limit(size)
      .offset((page - 1) * size)
      .execute(),
    own.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map((row) => userLogView(row, language)), total: Number(count.total), page, page_size: size };
}
