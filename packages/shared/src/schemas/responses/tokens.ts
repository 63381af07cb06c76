import { z } from 'zod';
import { pageOf } from '../envelope.js';

/** A token as its owner reads it (GET /api/token/...); the key is stored without the sk- prefix. */
export const tokenSchema = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int(),
  key: z.string(),
  status: z.number().int(),
  name: z.string(),
  created_time: z.number().int(),
  accessed_time: z.number().int(),
  expired_time: z.number().int(),
  remain_quota: z.number().int(),
  unlimited_quota: z.number().int(),
  model_limits_enabled: z.number().int(),
  model_limits: z.string(),
  allow_ips: z.string(),
  used_quota: z.number().int(),
  group: z.string(),
  /** At most this many requests in flight at once (0: no limit). */
  max_concurrency: z.number().int(),
  /** 1: an `auto` token's failover goes on into the next auto group. */
  cross_group_retry: z.number().int(),
  /** Seconds identical requests are answered from the response cache (0: the group's setting). */
  response_cache_ttl: z.number().int(),
});
export type Token = z.infer<typeof tokenSchema>;
export const tokenPageSchema = pageOf(tokenSchema);
