import { optionalQueryInt, unixTimeMax } from '@modelgate/shared';
import { z } from 'zod';

const timestamp = (name: string) => optionalQueryInt(name, unixTimeMax);

export const quotaDataQuery = z.object({
  username: z
    .string()
    .max(64)
    .optional()
    .transform((value) => value?.trim() || undefined),
  start_timestamp: timestamp('start_timestamp'),
  end_timestamp: timestamp('end_timestamp'),
});

export type QuotaDataQuery = z.infer<typeof quotaDataQuery>;
