/** What the dashboard reads: a time window, and for admins one username (empty: everyone). */
export interface DataQuery {
  start_timestamp: number;
  end_timestamp: number;
  /** Admin only. */
  username: string;
}

/** Query keys of the dashboard. */
export const dashboardKeys = {
  all: ['dashboard'] as const,
  data: (isAdmin: boolean, query: DataQuery) => [...dashboardKeys.all, isAdmin, query] as const,
};
