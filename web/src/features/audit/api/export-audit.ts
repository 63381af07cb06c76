import { requestFile } from '../../../lib/http';
import { auditQueryOf, type AuditFilters } from './keys';

/** GET /api/audit/export with the list's filters: the CSV or JSON Lines file's bytes. */
export const exportAudit = (filters: AuditFilters, format: 'csv' | 'jsonl') =>
  requestFile('/api/audit/export', { query: { ...auditQueryOf(filters), format } });
