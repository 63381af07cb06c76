import type { AuditEntry } from '@modelgate/shared';
import { http, requestFile, type Page } from '../../../lib/http';

export type { AuditEntry };

/** The screen's filters: who (username), what (entity, action), when (unix seconds, 0 = open). */
export interface AuditFilters {
  username: string;
  entity: string;
  action: string;
  start_timestamp: number;
  end_timestamp: number;
}

export type AuditVerdict =
  | { ok: true; checked: number }
  | { ok: false; checked: number; brokenId: number | null; reason: 'edited' | 'unlinked' | 'newest_missing' };

export const auditQueryKey = ['audit'] as const;
export const auditListKey = (filters: AuditFilters) => [...auditQueryKey, 'list', filters] as const;

function queryOf(filters: AuditFilters): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  if (filters.username.trim()) query.username = filters.username.trim();
  if (filters.entity) query.entity = filters.entity;
  if (filters.action.trim()) query.action = filters.action.trim();
  if (filters.start_timestamp) query.start_timestamp = filters.start_timestamp;
  if (filters.end_timestamp) query.end_timestamp = filters.end_timestamp;
  return query;
}

/** GET /api/audit: a page, newest first. */
export const fetchAuditPage = (filters: AuditFilters, page: number, pageSize: number) =>
  http.get<Page<AuditEntry>>('/api/audit', { query: { ...queryOf(filters), p: page, page_size: pageSize } });

/** GET /api/audit/verify: the hash chain checked from the oldest kept entry to the newest. */
export const verifyAudit = () => http.get<AuditVerdict>('/api/audit/verify');

/** GET /api/audit/export with the same filters: the file's bytes. */
export const exportAudit = (filters: AuditFilters, format: 'csv' | 'jsonl') =>
  requestFile('/api/audit/export', { query: { ...queryOf(filters), format } });
