import { defaultPageSize, idParam, int32Max, maxPageSize } from '@modelgate/shared';
import { z } from 'zod';

export { createTokenSchema, updateTokenSchema, updateTokenStatusSchema } from '@modelgate/shared';

const pageSize = z.coerce
  .number({ error: 'page_size 必须是数字' })
  .int({ error: 'page_size 必须是整数' })
  .min(1, { error: 'page_size 必须大于 0' })
  .max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
  .optional();

/** GET /api/token/: pages start at 1 (p=0 is read as 1); `size` and `page_size` both name the page size. */
export const listTokensQuery = z
  .object({
    p: z.coerce.number({ error: 'p 必须是数字' }).int({ error: 'p 必须是整数' }).max(int32Max, { error: 'p 超出范围' }).optional(),
    size: pageSize,
    page_size: pageSize,
  })
  .transform((query) => ({ page: Math.max(1, query.p ?? 1), pageSize: query.page_size ?? query.size ?? defaultPageSize }));

export const searchTokensQuery = z
  .object({
    keyword: z.string().max(191).optional(),
    token: z.string().max(128).optional(),
    p: z.coerce.number({ error: 'p 必须是数字' }).int({ error: 'p 必须是整数' }).max(int32Max, { error: 'p 超出范围' }).optional(),
    size: pageSize,
    page_size: pageSize,
  })
  .transform((query) => ({
    keyword: query.keyword?.trim() ?? '',
    key: (query.token?.trim() ?? '').replace(/^sk-/, ''),
    page: Math.max(1, query.p ?? 1),
    pageSize: query.page_size ?? query.size ?? defaultPageSize,
  }));

export const tokenIdParams = z.object({ id: idParam() });

export const updateTokenQuery = z.object({
  status_only: z
    .enum(['true', 'false', '1', '0', ''], { error: 'status_only 必须是 true 或 false' })
    .optional()
    .transform((value) => value === 'true' || value === '1'),
});

export type TokenPageQuery = z.infer<typeof listTokensQuery>;
export type SearchTokensQuery = z.infer<typeof searchTokensQuery>;
