import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * One schema type for SQLite, PostgreSQL and MySQL. Table and column names follow the product
 * spec's entity fields (and the one-api/new-api family), so data can move between gateways.
 * Conventions: times are unix seconds in BIGINT columns; booleans are 0/1 integers; JSON is text.
 */
type Id = Generated<number>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface UsersTable {
  id: Id;
  username: string;
  password: string;
  display_name: Defaulted<string>;
  role: Defaulted<number>;
  status: Defaulted<number>;
  email: Defaulted<string>;
  github_id: Defaulted<string>;
  oidc_id: Defaulted<string>;
  wechat_id: Defaulted<string>;
  telegram_id: Defaulted<string>;
  linux_do_id: Defaulted<string>;
  access_token: ColumnType<string | null, string | null | undefined, string | null>;
  quota: Defaulted<number>;
  used_quota: Defaulted<number>;
  request_count: Defaulted<number>;
  group: Defaulted<string>;
  aff_code: ColumnType<string | null, string | null | undefined, string | null>;
  aff_count: Defaulted<number>;
  aff_quota: Defaulted<number>;
  aff_history_quota: Defaulted<number>;
  inviter_id: Defaulted<number>;
  setting: Defaulted<string>;
  remark: Defaulted<string>;
  created_time: Defaulted<number>;
  deleted_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** Bumped to end every session of the user (migration 0002). */
  session_version: Defaulted<number>;
}

export interface OptionsTable {
  key: string;
  value: string;
}

export interface SetupsTable {
  id: Id;
  version: string;
  initialized_at: number;
}

export interface TokensTable {
  id: Id;
  user_id: number;
  key: string;
  status: Defaulted<number>;
  name: Defaulted<string>;
  created_time: Defaulted<number>;
  accessed_time: Defaulted<number>;
  expired_time: Defaulted<number>;
  remain_quota: Defaulted<number>;
  unlimited_quota: Defaulted<number>;
  model_limits_enabled: Defaulted<number>;
  model_limits: Defaulted<string>;
  allow_ips: Defaulted<string>;
  used_quota: Defaulted<number>;
  group: Defaulted<string>;
  deleted_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** At most this many requests in flight at once (0: no limit; migration 0007). */
  max_concurrency: Defaulted<number>;
  /** 1: an `auto` token's failover goes on into the next auto group (migration 0010). */
  cross_group_retry: Defaulted<number>;
  /** Seconds an answer to this token's identical request is served from the response cache (0: the group's setting; migration 0016). */
  response_cache_ttl: Defaulted<number>;
}

export interface ChannelsTable {
  id: Id;
  type: Defaulted<number>;
  key: string;
  openai_organization: Defaulted<string>;
  test_model: Defaulted<string>;
  status: Defaulted<number>;
  name: Defaulted<string>;
  weight: Defaulted<number>;
  created_time: Defaulted<number>;
  test_time: Defaulted<number>;
  response_time: Defaulted<number>;
  base_url: Defaulted<string>;
  other: Defaulted<string>;
  balance: Defaulted<number>;
  balance_updated_time: Defaulted<number>;
  models: Defaulted<string>;
  group: Defaulted<string>;
  used_quota: Defaulted<number>;
  model_mapping: Defaulted<string>;
  status_code_mapping: Defaulted<string>;
  priority: Defaulted<number>;
  auto_ban: Defaulted<number>;
  other_info: Defaulted<string>;
  tag: Defaulted<string>;
  setting: Defaulted<string>;
  param_override: Defaulted<string>;
  max_input_tokens: Defaulted<number>;
}

export interface AbilitiesTable {
  group: string;
  model: string;
  channel_id: number;
  enabled: Defaulted<number>;
  priority: Defaulted<number>;
  weight: Defaulted<number>;
  tag: Defaulted<string>;
}

export interface RedemptionsTable {
  id: Id;
  user_id: Defaulted<number>;
  key: string;
  status: Defaulted<number>;
  name: Defaulted<string>;
  quota: Defaulted<number>;
  created_time: Defaulted<number>;
  redeemed_time: Defaulted<number>;
  used_user_id: Defaulted<number>;
  expired_time: Defaulted<number>;
  deleted_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface LogsTable {
  id: Id;
  user_id: Defaulted<number>;
  created_at: number;
  type: number;
  content: Defaulted<string>;
  username: Defaulted<string>;
  token_name: Defaulted<string>;
  model_name: Defaulted<string>;
  quota: Defaulted<number>;
  prompt_tokens: Defaulted<number>;
  completion_tokens: Defaulted<number>;
  use_time: Defaulted<number>;
  is_stream: Defaulted<number>;
  channel_id: Defaulted<number>;
  token_id: Defaulted<number>;
  group: Defaulted<string>;
  ip: Defaulted<string>;
  other: Defaulted<string>;
}

export interface TopUpsTable {
  id: Id;
  user_id: number;
  amount: Defaulted<number>;
  money: Defaulted<number>;
  trade_no: string;
  payment_method: Defaulted<string>;
  create_time: Defaulted<number>;
  complete_time: Defaulted<number>;
  status: Defaulted<string>;
  /** The gateway's own id of the order: a Stripe Checkout Session id; '' for Epay (migration 0008). */
  gateway_ref: Defaulted<string>;
}

/** What an admin sells (migration 0008). `models` and `groups` are JSON arrays; empty covers all. */
export interface SubscriptionPlansTable {
  id: Id;
  name: string;
  description: Defaulted<string>;
  /** Money per period, in StripeCurrency. */
  price: Defaulted<number>;
  period_unit: Defaulted<string>;
  period_count: Defaulted<number>;
  /** Quota granted at the start of each period. */
  quota: Defaulted<number>;
  models: Defaulted<string>;
  groups: Defaulted<string>;
  enabled: Defaulted<number>;
  sort_order: Defaulted<number>;
  created_time: Defaulted<number>;
  updated_time: Defaulted<number>;
}

/** One purchase of a plan through a payment gateway (migration 0008). */
export interface SubscriptionOrdersTable {
  id: Id;
  user_id: number;
  plan_id: number;
  money: Defaulted<number>;
  currency: Defaulted<string>;
  trade_no: string;
  gateway: Defaulted<string>;
  gateway_ref: Defaulted<string>;
  status: Defaulted<string>;
  create_time: Defaulted<number>;
  complete_time: Defaulted<number>;
  /** The buyer while the order is pending, else NULL: unique, one pending purchase per user (0011). */
  pending_user_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/**
 * A user's subscription (migration 0008): the plan's terms copied at purchase, the current period
 * [period_start, period_end) and what is left of its allowance. It funds calls while `status` is
 * 'active' and now is inside the period. `ends_at` 0 = renews (a Stripe subscription); otherwise the
 * last period ends then (an admin grant, a cancelled or lapsed subscription).
 */
export interface UserSubscriptionsTable {
  id: Id;
  user_id: number;
  plan_id: number;
  plan_name: Defaulted<string>;
  source: Defaulted<string>;
  status: Defaulted<string>;
  period_unit: Defaulted<string>;
  period_count: Defaulted<number>;
  period_quota: Defaulted<number>;
  remaining_quota: Defaulted<number>;
  models: Defaulted<string>;
  groups: Defaulted<string>;
  period_start: Defaulted<number>;
  period_end: Defaulted<number>;
  ends_at: Defaulted<number>;
  cancelled_at: Defaulted<number>;
  stripe_subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_time: Defaulted<number>;
  updated_time: Defaulted<number>;
}

export interface QuotaDataTable {
  id: Id;
  user_id: number;
  username: Defaulted<string>;
  model_name: Defaulted<string>;
  created_at: number;
  token_used: Defaulted<number>;
  count: Defaulted<number>;
  quota: Defaulted<number>;
}

export interface MidjourneysTable {
  id: Id;
  code: Defaulted<number>;
  user_id: Defaulted<number>;
  action: Defaulted<string>;
  mj_id: Defaulted<string>;
  prompt: Defaulted<string>;
  prompt_en: Defaulted<string>;
  description: Defaulted<string>;
  state: Defaulted<string>;
  submit_time: Defaulted<number>;
  start_time: Defaulted<number>;
  finish_time: Defaulted<number>;
  image_url: Defaulted<string>;
  status: Defaulted<string>;
  progress: Defaulted<string>;
  fail_reason: Defaulted<string>;
  channel_id: Defaulted<number>;
  quota: Defaulted<number>;
  buttons: Defaulted<string>;
  properties: Defaulted<string>;
  /** The token that paid (0: none); a refund gives the quota back to it. */
  token_id: Defaulted<number>;
  /** The upstream's task id; clients see only `mj_id`, the gateway's. */
  upstream_id: Defaulted<string>;
  /** Poll lease: the instance polling the task and until when (unix seconds). */
  lease_owner: Defaulted<string>;
  lease_until: Defaulted<number>;
  video_url: Defaulted<string>;
  /** Where the caller asked to be told of changes (MjNotifyEnabled); '' for none. */
  notify_hook: Defaulted<string>; /** What subscription allowances paid of `quota` (JSON parts, migration 0012); '' for a user without subscription funding. */
  subscription_parts: Defaulted<string>;
}

export interface TasksTable {
  id: Id;
  created_at: Defaulted<number>;
  updated_at: Defaulted<number>;
  task_id: Defaulted<string>;
  platform: Defaulted<string>;
  user_id: Defaulted<number>;
  channel_id: Defaulted<number>;
  quota: Defaulted<number>;
  action: Defaulted<string>;
  status: Defaulted<string>;
  fail_reason: Defaulted<string>;
  submit_time: Defaulted<number>;
  start_time: Defaulted<number>;
  finish_time: Defaulted<number>;
  progress: Defaulted<string>;
  properties: Defaulted<string>;
  data: Defaulted<string>;
  /** The token that paid (0: none); a refund gives the quota back to it. */
  token_id: Defaulted<number>;
  /** The upstream's task id; clients see only `task_id`, the gateway's. */
  upstream_id: Defaulted<string>;
  /** Poll lease: the instance polling the task and until when (unix seconds). */
  lease_owner: Defaulted<string>;
  lease_until: Defaulted<number>;
  /** What subscription allowances paid of `quota` (JSON parts, migration 0012); '' for a user without subscription funding. */
  subscription_parts: Defaulted<string>;
}

/** Responses the gateway produced, for `previous_response_id` (migration 0006). */
export interface StoredResponsesTable {
  id: string;
  user_id: number;
  /** 0 while the answer is being produced, 1 when complete. */
  status: number;
  /** JSON: the conversation up to and including this response, as Responses input items. */
  items: string;
  created_at: number;
  expires_at: number;
}

/** A user's TOTP secret, present once enrolment finished (migration 0008). */
export interface TwoFasTable {
  id: Id;
  user_id: number;
  /** Base32 (RFC 4648), as authenticator apps take it. */
  secret: string;
  /** The RFC 6238 time-step of the last accepted code: a code of this step or earlier is refused. */
  last_used_step: Defaulted<number>;
  created_at: Defaulted<number>;
  updated_at: Defaulted<number>;
}

/** One-use recovery codes: SHA-256 of `<user id>:<code>`, never the code (migration 0008). */
export interface TwoFaBackupCodesTable {
  id: Id;
  user_id: number;
  code_hash: string;
  is_used: Defaulted<number>;
  used_at: Defaulted<number>;
  created_at: Defaulted<number>;
}

/** WebAuthn credentials (passkeys), several per user (migration 0008). */
export interface PasskeyCredentialsTable {
  id: Id;
  user_id: number;
  /** base64url of the credential's raw id. */
  credential_id: string;
  /** base64url of the COSE public key. */
  public_key: string;
  counter: Defaulted<number>;
  /** JSON array of AuthenticatorTransport names. */
  transports: Defaulted<string>;
  /** 'singleDevice' or 'multiDevice'. */
  device_type: Defaulted<string>;
  backed_up: Defaulted<number>;
  name: Defaulted<string>;
  created_at: Defaulted<number>;
  last_used_at: Defaulted<number>;
}

/** A subscription share a call in flight took and has not billed yet (migration 0013, subscriptions/funding-holds.ts). */
export interface FundingHoldsTable {
  id: Id;
  /** The instance holding it (`relay_instances.id`). */
  instance: string;
  user_id: number;
  /** The parts taken, as a task's `subscription_parts`: `[{subscription_id, period_end, quota}]`. */
  parts: string;
  created_at: Defaulted<number>;
}

/** Each running instance's heartbeat (migration 0013): holds of an instance that stopped beating are given back. */
export interface RelayInstancesTable {
  id: string;
  seen_at: number;
}

/** One change by an admin or the root (or an admin's sign-in), chained by hash (migration 0015, docs/audit.md). */
export interface AuditLogsTable {
  id: Id;
  created_at: number;
  user_id: number;
  username: string;
  role: number;
  ip: string;
  method: string;
  /** The Fastify route pattern, e.g. /api/channel/ (or a sign-in's /api/user/login). */
  route: string;
  entity: string;
  entity_id: string;
  action: string;
  /** JSON text with secrets removed; '' when there is none (a create has no before). */
  before: string;
  after: string;
  /** The HTTP status of the answer: a refused attempt is recorded with its 4xx. */
  status: number;
  prev_hash: string;
  hash: string;
}

/** The single row (id 1) every append locks first: the newest hash and the retention anchor. */
export interface AuditHeadTable {
  id: number;
  seq: number;
  last_id: number;
  last_hash: string;
  anchor_hash: string;
}

export interface Database {
  users: UsersTable;
  options: OptionsTable;
  setups: SetupsTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  abilities: AbilitiesTable;
  redemptions: RedemptionsTable;
  logs: LogsTable;
  top_ups: TopUpsTable;
  quota_data: QuotaDataTable;
  midjourneys: MidjourneysTable;
  tasks: TasksTable;
  stored_responses: StoredResponsesTable;
  subscription_plans: SubscriptionPlansTable;
  subscription_orders: SubscriptionOrdersTable;
  user_subscriptions: UserSubscriptionsTable;
  two_fas: TwoFasTable;
  two_fa_backup_codes: TwoFaBackupCodesTable;
  passkey_credentials: PasskeyCredentialsTable;
  funding_holds: FundingHoldsTable;
  relay_instances: RelayInstancesTable;
  audit_logs: AuditLogsTable;
  audit_head: AuditHeadTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type TokenRow = Selectable<TokensTable>;
export type NewToken = Insertable<TokensTable>;
export type ChannelRow = Selectable<ChannelsTable>;
export type NewChannel = Insertable<ChannelsTable>;
export type AbilityRow = Selectable<AbilitiesTable>;
export type RedemptionRow = Selectable<RedemptionsTable>;
export type LogRow = Selectable<LogsTable>;
export type NewLog = Insertable<LogsTable>;
export type QuotaDataRow = Selectable<QuotaDataTable>;
