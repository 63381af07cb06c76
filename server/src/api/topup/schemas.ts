import { defaultPageSize, int32Max, maxPageSize } from '@modelgate/shared';
import { z } from 'zod';

export { redeemCodeSchema, topUpAmountSchema, topUpPaySchema } from '@modelgate/shared';

/** GET /api/user/epay/notify: the gateway's callback; every field is a string and all are signed. */
export const epayNotifyQuery = z
  .record(z.string(), z.union([z.string(), z.array(z.string())]))
  .transform((query) =>
    Object.fromEntries(Object.entries(query).map(([key, value]) => [key, Array.isArray(value) ? (value[0] ?? '') : value])),
  );

const page = z.coerce.number({ error: 'p 必须是数字' }).int({ error: 'p 必须是整数' }).max(int32Max, { error: 'p 超出范围' }).optional();
const pageSize = z.coerce
  .number({ error: 'page_size 必须是数字' })
  .int({ error: 'page_size 必须是整数' })
  .min(1, { error: 'page_size 必须大于 0' })
  .max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
  .optional();

/** GET /api/user/topup/self and GET /api/user/topup (admins; keyword: a trade number's start or a username). */
export const topUpPageQuery = z
  .object({ p: page, page_size: pageSize, keyword: z.string({ error: 'keyword 必须是字符串' }).max(191).optional() })
  .transform((query) => ({
    page: Math.max(1, query.p ?? 1),
    pageSize: query.page_size ?? defaultPageSize,
    keyword: query.keyword?.trim() ?? '',
  }));
