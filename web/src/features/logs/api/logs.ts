import { useQuery } from '@tanstack/react-query';
import { http, type Page } from '../../../lib/http';

/** A usage-log row; `other` is a JSON string. */
export interface LogEntry {
  id: number;
  created_at: number;
  type: number;
  channel?: number;
  channel_name?: string;
  username: string;
  user_id: number;
  token_name: string;
  model_name: string;
  group: string;
  is_stream: number | boolean;
  use_time: number;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  content: string;
  other: string;
}

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

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

export interface LogUserInfo {
  username: string;
  quota: number;
  used_quota: number;
  request_count: number;
}

export const logsQueryKey = ['logs'] as const;

function queryOf(filters: LogFilters, isAdmin: boolean) {
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

/** GET /api/log/ (admin, every user) or /api/log/self/ (one's own). */
export const fetchLogs = (filters: LogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  http.get<Page<LogEntry>>(isAdmin ? '/api/log/' : '/api/log/self/', { query: { ...queryOf(filters, isAdmin), p: page, page_size: pageSize } });

/** GET /api/log/stat or /api/log/self/stat: quota, rpm, tpm for the same filters. */
export const useLogStat = (filters: LogFilters, isAdmin: boolean) =>
  useQuery({
    queryKey: [...logsQueryKey, 'stat', isAdmin, filters],
    queryFn: () => http.get<LogStat>(isAdmin ? '/api/log/stat' : '/api/log/self/stat', { query: queryOf(filters, isAdmin) }),
  });

/** GET /api/user/:id for the admin's click-through on a user name. */
export const useLogUser = (userId: number | null) =>
  useQuery({
    queryKey: ['users', 'one', userId],
    queryFn: () => http.get<LogUserInfo>(`/api/user/${userId}`),
    enabled: userId !== null,
  });

/** DELETE /api/log/?target_timestamp=: removes logs older than the time; answers the count. */
export const deleteLogsBefore = (targetTimestamp: number) =>
  http.delete<number>('/api/log/', { query: { target_timestamp: targetTimestamp } });
