import { defaultPageSize, maxPageSize } from '@modelgate/shared';
import { z } from 'zod';

const optionalInt = (name: string) =>
  z.union([z.literal(''), z.coerce.number({ error: `${name} 必须是数字` }).int({ error: `${name} 必须是整数` })
    .min(0, { error: `${name} 不能为负数` })]).optional().transform((value) => (value === '' ? undefined : value));

const optionalText = (max: number) => z.string().max(max).optional().transform((value) => value?.trim() || undefined);

/** Filters of GET /api/log/ and /api/log/self/ (and their /stat); 0 or empty means no filter. */
export const logQuery = z.object({
  p: z.coerce.number({ error: 'p 必须是数字' }).int({ error: 'p 必须是整数' }).optional()
    .transform((value) => Math.max(1, value ?? 1)),
  page_size: z.coerce.number({ error: 'page_size 必须是数字' }).int({ error: 'page_size 必须是整数' })
    .min(1, { error: 'page_size 必须大于 0' }).max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
    .optional().transform((value) => value ?? defaultPageSize),
  type: optionalInt('type'),
  username: optionalText(64),
  token_name: optionalText(191),
  model_name: optionalText(191),
  start_timestamp: optionalInt('start_timestamp'),
  end_timestamp: optionalInt('end_timestamp'),
  channel: optionalInt('channel'),
  group: optionalText(64),
});

export type LogQuery = z.infer<typeof logQuery>;

export const deleteLogsQuery = z
  .object({ target_timestamp: z.string().optional() })
  .transform((query, ctx) => {
    const target = Number(query.target_timestamp ?? '');
    if (!query.target_timestamp || !Number.isInteger(target) || target <= 0) {
      ctx.addIssue({ code: 'custom', message: '请选择日志记录时间', path: [] });
      return z.NEVER;
    }
    return { targetTimestamp: target };
  });
