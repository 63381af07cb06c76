import type { SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import type { AuditFilters, AuditQuery } from './schemas.js';

type AuditSelect<O> = SelectQueryBuilder<Database, 'audit_logs', O>;

/** The filters of the audit screen and export, each an indexed column (migration 0015). */
export function applyAuditFilters<O>(query: AuditSelect<O>, filters: AuditFilters): AuditSelect<O> {
  let q = query;
  if (filters.user_id) q = q.where('user_id', '=', filters.user_id);
  if (filters.username) q = q.where('username', '=', filters.username);
  if (filters.entity) q = q.where('entity', '=', filters.entity);
  if (filters.entity_id) q = q.where('entity_id', '=', filters.entity_id);
  if (filters.route) q = q.where('route', '=', filters.route);
  if (filters.action) q = q.where('action', '=', filters.action);
  if (filters.start_timestamp) q = q.where('created_at', '>=', filters.start_timestamp);
  if (filters.end_timestamp) q = q.where('created_at', '<=', filters.end_timestamp);
  return q;
}

/** A page of the trail, newest first. */
export async function findAuditEntries(ctx: AppContext, query: AuditQuery) {
  const { db } = ctx.storage;
  const [count, rows] = await Promise.all([
    applyAuditFilters(
      db.selectFrom('audit_logs').select((eb) => eb.fn.countAll<number>().as('total')),
      query,
    ).executeTakeFirstOrThrow(),
    applyAuditFilters(db.selectFrom('audit_logs').selectAll(), query)
      .orderBy('id', 'desc')
      .limit(query.page_size)
      .offset((query.p - 1) * query.page_size)
      .execute(),
  ]);
  return {
    items: rows.map((row) => ({ ...row, id: Number(row.id) })),
    page: query.p,
    page_size: query.page_size,
    total: Number(count.total),
  };
}
