import type { TokenRow } from '../../db/schema.js';

/** GET /api/usage/token's data, in new-api's shape (its GetTokenUsage): quota in quota units. */
export interface TokenUsage {
  object: 'token_usage';
  name: string;
  /** remain + used. */
  total_granted: number;
  total_used: number;
  /** What is left (the remaining quota, also for an unlimited token). */
  total_available: number;
  unlimited_quota: boolean;
  /** Each model of the token's model list, mapped to true. */
  model_limits: Record<string, boolean>;
  model_limits_enabled: boolean;
  /** Unix seconds; 0 = never. */
  expires_at: number;
}

export function tokenUsageOf(token: TokenRow): TokenUsage {
  const remain = Number(token.remain_quota);
  const used = Number(token.used_quota);
  const models = token.model_limits
    .split(',')
    .map((model) => model.trim())
    .filter(Boolean);
  return {
    object: 'token_usage',
    name: token.name,
    total_granted: remain + used,
    total_used: used,
    total_available: remain,
    unlimited_quota: token.unlimited_quota !== 0,
    model_limits: Object.fromEntries(models.map((model) => [model, true])),
    model_limits_enabled: token.model_limits_enabled !== 0,
    expires_at: Number(token.expired_time) === -1 ? 0 : Number(token.expired_time),
  };
}
