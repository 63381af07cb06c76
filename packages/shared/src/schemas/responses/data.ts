import { z } from 'zod';

const int = () => z.number().int();

/** One hourly bucket of consumption (GET /api/data/, /api/data/self): a user's use of a model in that hour. */
export const quotaDataSchema = z.strictObject({
  id: int(),
  user_id: int(),
  username: z.string(),
  model_name: z.string(),
  /** The hour's start, unix seconds. */
  created_at: int(),
  token_used: int(),
  count: int(),
  quota: int(),
});
export type QuotaData = z.infer<typeof quotaDataSchema>;

/** GET /api/data/'s data: the buckets, oldest first. */
export const quotaDataListSchema = z.array(quotaDataSchema);

/** What GET /api/data/ answers beside `data`: when the buckets were last aggregated (0: not yet) and how often. */
export const quotaDataBeside = { aggregated_at: int(), aggregation_interval_minutes: int() };
