import { z } from 'zod';
import { pageOf } from '../envelope.js';

const int = () => z.number().int();

/** The columns of a usage log row every reader sees (the channel is an operator's). */
const logFields = {
  id: int(),
  user_id: int(),
  created_at: int(),
  type: int(),
  /** The details, in the reader's language. */
  content: z.string(),
  username: z.string(),
  token_name: z.string(),
  model_name: z.string(),
  quota: int(),
  prompt_tokens: int(),
  completion_tokens: int(),
  /** Seconds the request took. */
  use_time: int(),
  is_stream: int(),
  token_id: int(),
  group: z.string(),
  ip: z.string(),
  /** JSON text of the billing details; a user's view has no admin_info. */
  other: z.string(),
};

/** A usage log row as its owner reads it (GET /api/log/self, /api/log/token): no channel. */
export const userLogSchema = z.strictObject(logFields);
export type UserLog = z.infer<typeof userLogSchema>;

/** A usage log row as an admin reads it (GET /api/log/): the channel's id (twice, as new-api) and name. */
export const adminLogSchema = z.strictObject({ ...logFields, channel_id: int(), channel: int(), channel_name: z.string() });
export type AdminLog = z.infer<typeof adminLogSchema>;

/** A log row the console shows: an admin's view or an owner's. */
export type LogEntry = UserLog & Partial<Pick<AdminLog, 'channel' | 'channel_id' | 'channel_name'>>;

/** GET /api/log/self's data. */
export const userLogPageSchema = pageOf(userLogSchema);
/** GET /api/log/'s data. */
export const adminLogPageSchema = pageOf(adminLogSchema);

/** GET /api/log/stat and /api/log/self/stat: quota of the matching consumption, requests and tokens of the last 60 s. */
export const logStatSchema = z.strictObject({ quota: int(), rpm: int(), tpm: int() });
export type LogStat = z.infer<typeof logStatSchema>;

/** DELETE /api/log/'s data: how many logs were removed. */
export const deletedLogsSchema = int();

/** GET /api/usage/token's data, in new-api's shape: a key's balance and usage in quota units. */
export const tokenUsageSchema = z.strictObject({
  object: z.literal('token_usage'),
  name: z.string(),
  total_granted: int(),
  total_used: int(),
  total_available: int(),
  unlimited_quota: z.boolean(),
  /** Each model of the token's model list, mapped to true. */
  model_limits: z.record(z.string(), z.literal(true)),
  model_limits_enabled: z.boolean(),
  /** Unix seconds; 0 = never. */
  expires_at: int(),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** What GET /api/usage/token answers beside `data` (new-api's `code: true`). */
export const tokenUsageBeside = { code: z.literal(true) };

/** GET /api/log/token's data: the latest rows without p/page_size, a page with them. */
export const tokenLogsSchema = z.union([z.array(userLogSchema), userLogPageSchema]);
