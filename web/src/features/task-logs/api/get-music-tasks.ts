import type { MusicTask, OwnMusicTask } from '@modelgate/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { taskLogKeys, taskLogSearch, type TaskLogFilters } from './keys';

/** A music or video task row: an owner's view, with the admin-only columns when an admin reads it. */
export type MusicTaskRow = OwnMusicTask & Partial<MusicTask>;

/** GET /api/task/ (admin) or /api/task/self; `page` counts from 0; a plain list. */
export const fetchMusicTasks = (filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  http.get<MusicTaskRow[]>(`/api/task/${isAdmin ? '' : 'self'}?${taskLogSearch(filters, 'task_id', isAdmin, page, pageSize)}`);

export const useMusicTasks = (filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  useQuery({
    queryKey: taskLogKeys.page('music', isAdmin, filters, page, pageSize),
    queryFn: () => fetchMusicTasks(filters, isAdmin, page, pageSize),
    placeholderData: keepPreviousData,
  });
