import type { TestServer } from '../helpers/test-server.js';

export interface AuditRowView {
  id: number;
  user_id: number;
  username: string;
  role: number;
  ip: string;
  method: string;
  route: string;
  entity: string;
  entity_id: string;
  action: string;
  status: number;
  before: any;
  after: any;
  raw: { before: string; after: string };
}

/** The audit rows written after `sinceId`, oldest first, read straight from the database. */
export async function auditRowsSince(server: TestServer, sinceId = 0): Promise<AuditRowView[]> {
  const rows = await server.ctx.storage.db.selectFrom('audit_logs').selectAll().where('id', '>', sinceId).orderBy('id').execute();
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    before: row.before === '' ? null : JSON.parse(row.before),
    after: row.after === '' ? null : JSON.parse(row.after),
    raw: { before: row.before, after: row.after },
  }));
}

/** The newest audit row's id (0 when there is none), to read only what a step wrote. */
export async function lastAuditId(server: TestServer): Promise<number> {
  const row = await server.ctx.storage.db.selectFrom('audit_logs').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? Number(row.id) : 0;
}

/** The one row a step wrote: fails when it wrote none or several. */
export async function onlyRowSince(server: TestServer, sinceId: number): Promise<AuditRowView> {
  const rows = await auditRowsSince(server, sinceId);
  if (rows.length !== 1)
    throw new Error(`expected one audit row, found ${rows.length}: ${rows.map((row) => `${row.method} ${row.route}`).join(', ')}`);
  return rows[0]!;
}
