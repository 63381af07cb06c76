import type { DrawingTask, OwnDrawingTask } from '@modelgate/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { taskLogKeys, taskLogSearch, type TaskLogFilters } from './keys';

/** A drawing task row: an owner's view, with the admin-only columns when an admin reads it. */
export type DrawingTaskRow = OwnDrawingTask & Partial<DrawingTask>;

/** GET /api/mj/ (admin) or /api/mj/self/; `page` counts from 0; a plain list. */
export const fetchDrawingTasks = (filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  http.get<DrawingTaskRow[]>(`/api/mj/${isAdmin ? '' : 'self/'}?${taskLogSearch(filters, 'mj_id', isAdmin, page, pageSize)}`);

export const useDrawingTasks = (filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  useQuery({
    queryKey: taskLogKeys.page('drawing', isAdmin, filters, page, pageSize),
    queryFn: () => fetchDrawingTasks(filters, isAdmin, page, pageSize),
    placeholderData: keepPreviousData,
  });
