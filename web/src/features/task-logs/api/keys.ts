/** Filters of both task logs; `channel_id` is an admin filter. */
export interface TaskLogFilters {
  channel_id: string;
  task_id: string;
  start_timestamp: number;
  end_timestamp: number;
  /** When the query button was pressed: a new search always reloads, even with the same filters. */
  searchedAt?: number;
}

/** Query keys of the task logs. */
export const taskLogKeys = {
  all: ['task-logs'] as const,
  page: (kind: 'drawing' | 'music', isAdmin: boolean, filters: TaskLogFilters, page: number, pageSize: number) =>
    [...taskLogKeys.all, kind, isAdmin, filters, page, pageSize] as const,
};

/** The query string of a task-log page (`page` counts from 0); the task id goes as `idParam`. */
export function taskLogSearch(
  filters: TaskLogFilters,
  idParam: 'mj_id' | 'task_id',
  isAdmin: boolean,
  page: number,
  pageSize: number,
): string {
  const query: Record<string, string | number> = { p: page, page_size: pageSize };
  if (filters.task_id) query[idParam] = filters.task_id;
  if (filters.start_timestamp) query.start_timestamp = filters.start_timestamp;
  if (filters.end_timestamp) query.end_timestamp = filters.end_timestamp;
  if (isAdmin && filters.channel_id) query.channel_id = filters.channel_id;
  return new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString();
}
