/** The details a log keeps in its `other` JSON: billing for consumption, the failure for errors (type 5). */
export interface LogOther {
  model_ratio?: number;
  model_price?: number;
  completion_ratio?: number;
  group_ratio?: number;
  user_group_ratio?: number;
  cache_tokens?: number;
  cache_ratio?: number;
  cache_creation_tokens?: number;
  cache_creation_ratio?: number;
  frt?: number;
  is_model_mapped?: boolean;
  upstream_model_name?: string;
  admin_info?: { use_channel?: (string | number)[]; upstream_status?: number; upstream_code?: string };
  reasoning_effort?: string;
  group?: string;
  status_code?: number;
  error_type?: string;
  error_code?: string;
  request_path?: string;
  /** An `auto` token's call: the group it used, and the group asked for ('auto'). */
  auto_group?: string;
  requested_group?: string;
  /** Who paid a call of a user with subscription funding (docs/billing.md); absent: the wallet. */
  billing_source?: 'subscription' | 'wallet' | 'mixed';
  subscription_quota?: number;
  wallet_quota?: number;
  subscription_id?: number;
  /** A call the response cache answered (docs/caching.md): billed `cache_hit_ratio` of `cache_original_quota`. */
  cache_hit?: boolean;
  cache_hit_ratio?: number;
  cache_original_quota?: number;
}

export function parseOther(text: string): LogOther {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as LogOther) : {};
  } catch {
    return {};
  }
}

/** Duration colour: under 101 s green, under 300 s orange, else red. */
export const durationColor = (seconds: number): string => (seconds < 101 ? 'green' : seconds < 300 ? 'orange' : 'red');

/** First-token time colour: under 3 s green, under 10 s orange, else red. */
export const firstTokenColor = (seconds: number): string => (seconds < 3 ? 'green' : seconds < 10 ? 'orange' : 'red');

/** Tag colour of who paid a call. */
export const billingSourceColor: Record<string, string> = { subscription: 'purple', mixed: 'magenta', wallet: 'default' };

export const LogTypeColor: Record<number, string> = { 1: 'cyan', 2: 'green', 3: 'orange', 4: 'purple', 5: 'red', 6: 'blue' };
