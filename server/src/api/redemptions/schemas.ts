import { defaultPageSize, idParam, int32Max, maxPageSize } from '@modelgate/shared';
import { z } from 'zod';

export { createRedemptionSchema, updateRedemptionSchema, updateRedemptionStatusSchema } from '@modelgate/shared';

const page = z.coerce.number({ error: 'p 必须是数字' }).int({ error: 'p 必须是整数' }).max(int32Max, { error: 'p 超出范围' }).optional();
const pageSize = z.coerce
  .number({ error: 'page_size 必须是数字' })
  .int({ error: 'page_size 必须是整数' })
  .min(1, { error: 'page_size 必须大于 0' })
  .max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
  .optional();

/** GET /api/redemption/: pages start at 1 (p=0 is read as 1). */
export const listRedemptionsQuery = z
  .object({ p: page, page_size: pageSize })
  .transform((query) => ({ page: Math.max(1, query.p ?? 1), pageSize: query.page_size ?? defaultPageSize, keyword: '' }));

/** GET /api/redemption/search: keyword matches the id, part of the name, or the start of the key. */
export const searchRedemptionsQuery = z
  .object({ keyword: z.string({ error: 'keyword 必须是字符串' }).max(191).optional(), p: page, page_size: pageSize })
  .transform((query) => ({
    keyword: query.keyword?.trim() ?? '',
    page: Math.max(1, query.p ?? 1),
    pageSize: query.page_size ?? defaultPageSize,
  }));

export const redemptionIdParams = z.object({ id: idParam() });

export const updateRedemptionQuery = z.object({
  status_only: z
    .enum(['true', 'false', '1', '0', ''], { error: 'status_only 必须是 true 或 false' })
    .optional()
    .transform((value) => value === 'true' || value === '1'),
});

export type RedemptionPageQuery = z.infer<typeof searchRedemptionsQuery>;
