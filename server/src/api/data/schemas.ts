import { z } from 'zod';

const timestamp = (name: string) =>
  z.union([z.literal(''), z.coerce.number({ error: `${name} 必须是数字` }).int({ error: `${name} 必须是整数` })
    .min(0, { error: `${name} 不能为负数` })]).optional().transform((value) => (value === '' ? undefined : value));

export const quotaDataQuery = z.object({
  username: z.string().max(64).optional().transform((value) => value?.trim() || undefined),
  start_timestamp: timestamp('start_timestamp'),
  end_timestamp: timestamp('end_timestamp'),
});

export type QuotaDataQuery = z.infer<typeof quotaDataQuery>;
