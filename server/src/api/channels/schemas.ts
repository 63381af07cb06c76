import { z } from 'zod';
import { defaultPageSize, idParam, maxPageSize, pageParam } from '@modelgate/shared';

export {
  channelTagSchema,
  createChannelSchema,
  deleteChannelsSchema,
  editChannelTagSchema,
  setChannelsTagSchema,
  updateChannelSchema,
} from '@modelgate/shared';

const flag = z
  .enum(['true', 'false', '1', '0', ''], { error: '必须是 true 或 false' })
  .optional()
  .transform((value) => value === 'true' || value === '1');

const page = pageParam();
const pageSize = z.coerce
  .number({ error: 'page_size 必须是数字' })
  .int({ error: 'page_size 必须是整数' })
  .min(1, { error: 'page_size 必须大于 0' })
  .max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
  .optional();

/** GET /api/channel/: pages start at 1 (p=0 is read as 1). */
export const listChannelsQuery = z.object({
  p: page,
  page_size: pageSize.transform((value) => value ?? defaultPageSize),
  id_sort: flag,
  tag_mode: flag,
});

export const searchChannelsQuery = listChannelsQuery.extend({
  keyword: z
    .string()
    .max(512)
    .optional()
    .transform((value) => value?.trim() ?? ''),
  group: z
    .string()
    .max(64)
    .optional()
    .transform((value) => value?.trim() ?? ''),
  model: z
    .string()
    .max(255)
    .optional()
    .transform((value) => value?.trim() ?? ''),
});

export const channelIdParams = z.object({ id: idParam() });

export const copyChannelQuery = z.object({
  suffix: z.string().max(64).optional(),
  reset_balance: z
    .enum(['true', 'false', '1', '0'], { error: 'reset_balance 必须是 true 或 false' })
    .optional()
    .transform((value) => value === undefined || value === 'true' || value === '1'),
});

export type ListChannelsQuery = z.infer<typeof listChannelsQuery>;
export type SearchChannelsQuery = z.infer<typeof searchChannelsQuery>;
