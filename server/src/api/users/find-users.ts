import type { UserPageQuery, UserSearchQuery } from '@modelgate/shared';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { adminUserColumns, toAdminView } from './user-views.js';
import { like } from '../../db/like.js';

type UserFilter = (eb: ExpressionBuilder<Database, 'users'>) => Expression<SqlBool>;

/** One page of users (soft-deleted included: the console greys them), newest first. */
async function findPage(ctx: AppContext, page: UserPageQuery, filter?: UserFilter) {
  const { db } = ctx.storage;
  let items = db.selectFrom('users').select(adminUserColumns);
  let count = db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('total'));
  if (filter) {
    items = items.where(filter);
    count = count.where(filter);
  }
  const [rows, totalRow] = await Promise.all([
    items
      .orderBy('id', 'desc')
      .limit(page.page_size)
      .offset((page.p - 1) * page.page_size)
      .execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toAdminView), page: page.p, page_size: page.page_size, total: Number(totalRow.total) };
}

export function listUsers(ctx: AppContext, page: UserPageQuery) {
  return findPage(ctx, page);
}

/** keyword matches the id exactly or username, display name or email as a substring; group exactly. */
export function searchUsers(ctx: AppContext, query: UserSearchQuery) {
  const keyword = query.keyword.trim();
  const group = query.group.trim();
  const filter: UserFilter = (eb) => {
    const conditions: Array<Expression<SqlBool>> = [];
    if (keyword !== '') {
      const matches: Array<Expression<SqlBool>> = (['username', 'display_name', 'email'] as const).map((column) =>
        like(column, keyword, 'contains'),
      );
      if (/^\d{1,9}$/.test(keyword)) matches.push(eb('id', '=', Number(keyword)));
      conditions.push(eb.or(matches));
    }
    if (group !== '') conditions.push(eb('group', '=', group));
    return eb.and(conditions);
  };
  return findPage(ctx, query, filter);
}
