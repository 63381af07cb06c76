import { z } from 'zod';

/** A field of a stored JSON text: its value when it has the declared type, else absent (never a parse failure). */
const field = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/**
 * The details a log keeps in its `other` JSON text (a log row's `other`, GET /api/log/...): billing
 * for consumption, the failure for errors (type 5). Fields the console does not read pass through
 * unchecked; a field of the wrong type reads as absent.
 */
export const logOtherSchema = z.object({
  model_ratio: field(z.number()),
  model_price: field(z.number()),
  completion_ratio: field(z.number()),
  group_ratio: field(z.number()),
  user_group_ratio: field(z.number()),
  cache_tokens: field(z.number()),
  cache_ratio: field(z.number()),
  cache_creation_tokens: field(z.number()),
  cache_creation_ratio: field(z.number()),
  /** Time to first token, milliseconds. */
  frt: field(z.number()),
  is_model_mapped: field(z.boolean()),
  upstream_model_name: field(z.string()),
  admin_info: field(
    z.object({
      use_channel: field(z.array(z.union([z.string(), z.number()]))),
      upstream_status: field(z.number()),
      upstream_code: field(z.string()),
    }),
  ),
  reasoning_effort: field(z.string()),
  group: field(z.string()),
  status_code: field(z.number()),
  error_type: field(z.string()),
  error_code: field(z.string()),
  request_path: field(z.string()),
  /** An `auto` token's call: the group it used, and the group asked for ('auto'). */
  auto_group: field(z.string()),
  requested_group: field(z.string()),
  /** Who paid a call of a user with subscription funding (docs/billing.md); absent: the wallet. */
  billing_source: field(z.enum(['subscription', 'wallet', 'mixed'])),
  subscription_quota: field(z.number()),
  wallet_quota: field(z.number()),
  subscription_id: field(z.number()),
  /** A call the response cache answered (docs/caching.md): billed `cache_hit_ratio` of `cache_original_quota`. */
  cache_hit: field(z.boolean()),
  cache_hit_ratio: field(z.number()),
  cache_original_quota: field(z.number()),
});
export type LogOther = z.infer<typeof logOtherSchema>;

/**
 * What the server writes into `other` (consume, error and refund rows): every field the console reads
 * with the type it reads it as, so a writer that drifts from the reader fails to compile; further
 * fields (usage details, a task's id) pass as they are.
 */
export type LogOtherFields = { [K in keyof LogOther]?: Exclude<LogOther[K], undefined> } & Record<string, unknown>;

/** A channel's `other_info` JSON text: why and when it was last disabled or enabled automatically. */
export const channelOtherInfoSchema = z.object({ status_reason: field(z.string()), status_time: field(z.number()) });
export type ChannelOtherInfo = z.infer<typeof channelOtherInfoSchema>;

/** Reads a stored JSON text with `schema`; {} for empty, malformed or non-object text. */
export function parseStoredJson<T extends z.ZodType>(schema: T, text: string | null | undefined): z.infer<T> {
  let parsed: unknown = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = {};
  }
  const result = schema.safeParse(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {});
  return result.success ? result.data : schema.parse({});
}
