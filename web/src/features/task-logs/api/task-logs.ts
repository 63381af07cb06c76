import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** A drawing (Midjourney) task row; channel_id, code and state are admin-only. */
export interface DrawingTask {
  id: number;
  created_at: number;
  submit_time: number;
  start_time: number;
  finish_time: number;
  channel_id?: number;
  code?: number;
  state?: string;
  action: string;
  mj_id: string;
  status: string;
  progress: string;
  image_url: string;
  prompt: string;
  prompt_en: string;
  description: string;
  fail_reason: string;
}

/** A music (Suno) task row; channel_id is admin-only. */
export interface MusicTask {
  id: number;
  created_at: number;
  submit_time: number;
  finish_time: number;
  progress: string;
  channel_id?: number;
  platform: string;
  action: string;
  task_id: string;
  status: string;
  fail_reason: string;
  data: string;
  /** Video tasks: the video's length, and once made the console's link to it. */
  video_seconds?: number;
  preview_url?: string;
}

/** Filters of both task logs; `channel_id` is an admin filter. */
export interface TaskLogFilters {
  channel_id: string;
  task_id: string;
  start_timestamp: number;
  end_timestamp: number;
  /** When the query button was pressed: a new search always reloads, even with the same filters. */
  searchedAt?: number;
}

export const taskLogsQueryKey = ['task-logs'] as const;

function queryOf(filters: TaskLogFilters, idParam: 'mj_id' | 'task_id', isAdmin: boolean, page: number, pageSize: number): Record<string, string | number> {
  const query: Record<string, string | number> = { p: page, page_size: pageSize };
  if (filters.task_id) query[idParam] = filters.task_id;
  if (filters.start_timestamp) query.start_timestamp = filters.start_timestamp;
  if (filters.end_timestamp) query.end_timestamp = filters.end_timestamp;
  if (isAdmin && filters.channel_id) query.channel_id = filters.channel_id;
  return query;
}

const toSearch = (query: Record<string, string | number>) => new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString();

/** GET /api/mj/ (admin) or /api/mj/self/; `page` counts from 0. */
export const fetchDrawingTasks = (filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  http.get<DrawingTask[]>(`/api/mj/${isAdmin ? '' : 'self/'}?${toSearch(queryOf(filters, 'mj_id', isAdmin, page, pageSize))}`);

/** GET /api/task/ (admin) or /api/task/self; `page` counts from 0. */
export const fetchMusicTasks = (filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  http.get<MusicTask[]>(`/api/task/${isAdmin ? '' : 'self'}?${toSearch(queryOf(filters, 'task_id', isAdmin, page, pageSize))}`);

/** One page of a task log (the server answers a plain list). */
export function useTaskPage<T>(kind: 'drawing' | 'music', filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number, fetchPage: typeof fetchDrawingTasks | typeof fetchMusicTasks) {
  return useQuery({
    queryKey: [...taskLogsQueryKey, kind, isAdmin, filters, page, pageSize],
    queryFn: () => fetchPage(filters, isAdmin, page, pageSize) as Promise<T[]>,
    placeholderData: keepPreviousData,
  });
}
