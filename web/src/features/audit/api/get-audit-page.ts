import type { AuditEntry, Page } from '@modelgate/shared';
import { http } from '../../../lib/http';
import { auditQueryOf, type AuditFilters } from './keys';

export type { AuditEntry };

/** GET /api/audit: a page, newest first. */
export const fetchAuditPage = (filters: AuditFilters, page: number, pageSize: number) =>
  http.get<Page<AuditEntry>>('/api/audit', { query: { ...auditQueryOf(filters), p: page, page_size: pageSize } });
