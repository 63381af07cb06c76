import { defaultPageSize, maxPageSize, optionalQueryInt, pageParam, unixTimeMax } from '@modelgate/shared';
import { z } from 'zod';

const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .optional()
    .transform((value) => value?.trim() || undefined);

/** Filters of GET /api/log/ and /api/log/self/ (and their /stat); 0 or empty means no filter. */
export const logQuery = z.object({
  p: pageParam(),
  page_size: z.coerce
    .number({ error: 'page_size 必须是数字' })
    .int({ error: 'page_size 必须是整数' })
    .min(1, { error: 'page_size 必须大于 0' })
    .max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
    .optional()
    .transform((value) => value ?? defaultPageSize),
  type: optionalQueryInt('type'),
  username: optionalText(64),
  token_name: optionalText(191),
  model_name: optionalText(191),
  start_timestamp: optionalQueryInt('start_timestamp', unixTimeMax),
  end_timestamp: optionalQueryInt('end_timestamp', unixTimeMax),
  channel: optionalQueryInt('channel'),
  group: optionalText(64),
});

export type LogQuery = z.infer<typeof logQuery>;

export const deleteLogsQuery = z.object({ target_timestamp: z.string().optional() }).transform((query, ctx) => {
  const target = Number(query.target_timestamp ?? '');
  if (!query.target_timestamp || !Number.isInteger(target) || target <= 0 || target > unixTimeMax) {
    ctx.addIssue({ code: 'custom', message: '请选择日志记录时间', path: [] });
    return z.NEVER;
  }
  return { targetTimestamp: target };
});
