/** What the usage log is filtered by; 0 or empty means no filter. */
export interface LogFilters {
  type: number;
  token_name: string;
  model_name: string;
  start_timestamp: number;
  end_timestamp: number;
  group: string;
  /** Admin only. */
  channel: string;
  /** Admin only. */
  username: string;
}

/** Query keys of the usage log. */
export const logKeys = {
  all: ['logs'] as const,
  list: (isAdmin: boolean, filters: LogFilters) => [...logKeys.all, 'list', isAdmin, filters] as const,
  stat: (isAdmin: boolean, filters: LogFilters) => [...logKeys.all, 'stat', isAdmin, filters] as const,
  /** The admin's click-through on a user name reads the users feature's row. */
  user: (userId: number | null) => ['users', 'one', userId] as const,
};

/** The query string of the filters: the admin-only ones only for admins. */
export function logQueryOf(filters: LogFilters, isAdmin: boolean) {
  return {
    type: filters.type || undefined,
    token_name: filters.token_name || undefined,
    model_name: filters.model_name || undefined,
    start_timestamp: filters.start_timestamp || undefined,
    end_timestamp: filters.end_timestamp || undefined,
    group: filters.group || undefined,
    channel: isAdmin ? filters.channel || undefined : undefined,
    username: isAdmin ? filters.username || undefined : undefined,
  };
}
