import { maxPageSize } from '@modelgate/shared';
import { z } from 'zod';

const pageInt = (name: string, max: number) =>
  z.coerce
    .number({ error: `${name} 必须是数字` })
    .int({ error: `${name} 必须是整数` })
    .min(1, { error: `${name} 必须大于 0` })
    .max(max, { error: `${name} 不能超过 ${max}` })
    .optional();

/** GET /api/log/token: paged when p or page_size is given, else the latest rows. */
export const tokenLogQuery = z.object({
  p: pageInt('p', 1_000_000),
  page_size: pageInt('page_size', maxPageSize),
});

export type TokenLogQuery = z.infer<typeof tokenLogQuery>;
