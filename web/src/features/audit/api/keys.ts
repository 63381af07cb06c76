/** The screen's filters: who (username), what (entity, action), when (unix seconds, 0 = open). */
export interface AuditFilters {
  username: string;
  entity: string;
  action: string;
  start_timestamp: number;
  end_timestamp: number;
}

/** Query keys of the audit trail. */
export const auditKeys = {
  all: ['audit'] as const,
  list: (filters: AuditFilters) => [...auditKeys.all, 'list', filters] as const,
};

/** The query string of the filters (the list's and the export's). */
export function auditQueryOf(filters: AuditFilters): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  if (filters.username.trim()) query.username = filters.username.trim();
  if (filters.entity) query.entity = filters.entity;
  if (filters.action.trim()) query.action = filters.action.trim();
  if (filters.start_timestamp) query.start_timestamp = filters.start_timestamp;
  if (filters.end_timestamp) query.end_timestamp = filters.end_timestamp;
  return query;
}
