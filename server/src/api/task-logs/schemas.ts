import { defaultPageSize, int32Max, maxPageSize, optionalQueryInt, unixTimeMax } from '@modelgate/shared';
import { z } from 'zod';

/** Task-log pages count from 0 (the console asks for the page after the last one it loaded). */
const zeroBasedPage = () =>
  z.coerce
    .number({ error: 'p 必须是数字' })
    .int({ error: 'p 必须是整数' })
    .min(0, { error: 'p 不能为负数' })
    .max(int32Max, { error: 'p 超出范围' })
    .optional()
    .transform((value) => value ?? 0);

const pageSize = () =>
  z.coerce
    .number({ error: 'page_size 必须是数字' })
    .int({ error: 'page_size 必须是整数' })
    .min(1, { error: 'page_size 必须大于 0' })
    .max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
    .optional()
    .transform((value) => value ?? defaultPageSize);

const taskIdText = z
  .string()
  .max(191, { error: '任务 ID 过长' })
  .optional()
  .transform((value) => value?.trim() || undefined);

const window = {
  p: zeroBasedPage(),
  page_size: pageSize(),
  channel_id: optionalQueryInt('channel_id'),
  start_timestamp: optionalQueryInt('start_timestamp', unixTimeMax),
  end_timestamp: optionalQueryInt('end_timestamp', unixTimeMax),
};

/** GET /api/mj/ and /api/mj/self/ (channel_id is an admin filter). */
export const drawingLogQuery = z.object({ ...window, mj_id: taskIdText });

/** GET /api/task/ and /api/task/self (channel_id is an admin filter). */
export const musicLogQuery = z.object({ ...window, task_id: taskIdText });

export type DrawingLogQuery = z.infer<typeof drawingLogQuery>;
export type MusicLogQuery = z.infer<typeof musicLogQuery>;

/** GET /api/task/video/{id}/content: a video task's id. */
export const videoParams = z.object({ id: z.string().min(1).max(191) });
