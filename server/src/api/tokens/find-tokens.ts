import { like } from '../../db/like.js';
import type { AppContext } from '../../context.js';
import type { SearchTokensQuery, TokenPageQuery } from './schemas.js';
import { tokenColumns, type TokenView } from './token-rules.js';

export interface TokenPage {
  items: TokenView[];
  page: number;
  page_size: number;
  total: number;
}

async function pageOf(ctx: AppContext, userId: number, query: TokenPageQuery, keyword = '', key = ''): Promise<TokenPage> {
  const db = ctx.storage.db;
  let base = db.selectFrom('tokens').where('user_id', '=', userId).where('deleted_at', 'is', null);
  if (keyword !== '') base = base.where(like('name', keyword, 'contains'));
  if (key !== '') base = base.where('key', '=', key);
  const [items, count] = await Promise.all([
    base
      .select([...tokenColumns])
      .orderBy('id', 'desc')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { items, page: query.page, page_size: query.pageSize, total: Number(count.total) };
}

/** GET /api/token/: the caller's tokens, newest first. */
export function findTokens(ctx: AppContext, userId: number, query: TokenPageQuery): Promise<TokenPage> {
  return pageOf(ctx, userId, query);
}

/** GET /api/token/search: the caller's tokens whose name contains keyword and/or whose key is token (sk- optional). */
export function searchTokens(ctx: AppContext, userId: number, query: SearchTokensQuery): Promise<TokenPage> {
  return pageOf(ctx, userId, query, query.keyword, query.key);
}
