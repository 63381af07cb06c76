import { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { AuditLogsTable } from '../../db/schema.js';
import type { Selectable } from 'kysely';
import { applyAuditFilters } from './find-audit.js';
import type { AuditExportQuery } from './schemas.js';

type AuditRow = Selectable<AuditLogsTable>;

export const auditColumns = [
  'id',
  'created_at',
  'user_id',
  'username',
  'role',
  'ip',
  'method',
  'route',
  'entity',
  'entity_id',
  'action',
  'status',
  'before',
  'after',
  'prev_hash',
  'hash',
] as const;

const pageSize = 500;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. A text starting with
 * = + - @ (or a tab or carriage return) is read as a formula by spreadsheets: it gets a leading
 * apostrophe, so an entry's text (a channel name, an option value) cannot run in the reader's sheet.
 */
export function csvCell(value: unknown): string {
  if (typeof value === 'number') return String(value);
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (row: AuditRow) => `${auditColumns.map((column) => csvCell(column === 'id' ? Number(row.id) : row[column])).join(',')}\r\n`;

/** JSON Lines: one entry per line, `before` and `after` as the objects they hold. */
function jsonLine(row: AuditRow): string {
  const parse = (text: string) => (text === '' ? null : (JSON.parse(text) as unknown));
  return `${JSON.stringify({ ...row, id: Number(row.id), before: parse(row.before), after: parse(row.after) })}\n`;
}

/**
 * The filtered trail, oldest first, as a stream read page by page (by id, so memory stays flat
 * however long the trail is).
 */
export function exportAuditEntries(ctx: AppContext, query: AuditExportQuery): Readable {
  const { db } = ctx.storage;
  const line = query.format === 'csv' ? csvLine : jsonLine;
  async function* lines() {
    if (query.format === 'csv') yield `${auditColumns.join(',')}\r\n`;
    let afterId = 0;
    for (;;) {
      const rows = await applyAuditFilters(db.selectFrom('audit_logs').selectAll().where('id', '>', afterId), query)
        .orderBy('id')
        .limit(pageSize)
        .execute();
      if (rows.length > 0) yield rows.map(line).join('');
      if (rows.length < pageSize) return;
      afterId = Number(rows[rows.length - 1]!.id);
    }
  }
  return Readable.from(lines());
}
