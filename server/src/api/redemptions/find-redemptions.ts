import { like } from '../../db/like.js';
import type { Expression, SqlBool } from 'kysely';
import type { AppContext } from '../../context.js';
import { redemptionColumns, type RedemptionView } from './redemption-rules.js';
import type { RedemptionPageQuery } from './schemas.js';

export interface RedemptionPage {
  items: RedemptionView[];
  page: number;
  page_size: number;
  total: number;
}

/** GET /api/redemption/ and /search: live codes, newest first; keyword matches id, name (contains) or key (prefix). */
export async function findRedemptions(ctx: AppContext, query: RedemptionPageQuery): Promise<RedemptionPage> {
  let base = ctx.storage.db.selectFrom('redemptions').where('deleted_at', 'is', null);
  const { keyword } = query;
  if (keyword !== '') {
    base = base.where((eb) => {
      const matches: Array<Expression<SqlBool>> = [like('name', keyword, 'contains'), like('key', keyword, 'starts')];
      if (/^\d{1,9}$/.test(keyword)) matches.push(eb('id', '=', Number(keyword)));
      return eb.or(matches);
    });
  }
  const [items, count] = await Promise.all([
    base
      .select([...redemptionColumns])
      .orderBy('id', 'desc')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { items, page: query.page, page_size: query.pageSize, total: Number(count.total) };
}
