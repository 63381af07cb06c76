import { accountMessages, chatsProblem, defaultChats } from '@modelgate/shared';
import { defaultAllowedPorts } from '../lib/outbound-guard.js';
import { defaultStructuredOutputModels, structuredOutputModelsCheck } from './claude-structured-output.js';
import { modelHeadersCheck } from './model-headers.js';
import { responseCacheGroupsCheck } from './response-cache.js';
import {
  defaultCacheCreationRatio,
  defaultCacheRatio,
  defaultCompletionRatio,
  defaultModelPrice,
  defaultModelRatio,
} from './default-ratios.js';
import {
  maxMapValue,
  numberMapCheck,
  stringMapCheck,
  apiVersionMapCheck,
  safetyThresholdMapCheck,
  groupGroupRatioCheck,
  groupListCheck,
  portListCheck,
  domainListCheck,
  addressListCheck,
  arrayCheck,
  urlCheck,
  statusListCheck,
} from './value-checks.js';

/**
 * Every option key named in the product spec, with its type, default and validation.
 * Values are strings in the `options` table; booleans are 'true'/'false'.
 */
export type OptionType = 'bool' | 'int' | 'float' | 'string' | 'json';

export interface OptionDefinition {
  type: OptionType;
  default: string;
  /** Never returned by GET /api/option/ nor logged. */
  secret?: boolean;
  min?: number;
  max?: number;
  /** Extra check on a value that already has the right type; returns an error message or null. */
  check?: (value: string) => string | null;
}

const bool = (value: boolean, extra: Partial<OptionDefinition> = {}): OptionDefinition => ({
  type: 'bool',
  default: String(value),
  ...extra,
});
/** An integer option: within JavaScript's exact integers at most (quotas beyond 2^53 would be rounded, and 1e300 "is an integer"). */
const int = (value: number, min = 0, max = Number.MAX_SAFE_INTEGER): OptionDefinition => ({
  type: 'int',
  default: String(value),
  min,
  max,
});
const float = (value: number, min = 0, max?: number): OptionDefinition => ({ type: 'float', default: String(value), min, max });
const text = (value = '', extra: Partial<OptionDefinition> = {}): OptionDefinition => ({ type: 'string', default: value, ...extra });
const secret = (): OptionDefinition => ({ type: 'string', default: '', secret: true });
const json = (value: unknown, check?: (value: string) => string | null): OptionDefinition => ({
  type: 'json',
  default: JSON.stringify(value),
  check,
});

export const defaultGroupRatio = { default: 1, vip: 1, svip: 1 };

export const optionRegistry = {
  // Server and payment
  ServerAddress: text('', { check: urlCheck }),
  WorkerUrl: text('', { check: urlCheck }),
  WorkerValidKey: secret(),
  EpayId: text(),
  EpayKey: secret(),
  Price: float(7.3, 0, maxMapValue),
  MinTopUp: int(1, 0),
  TopupGroupRatio: json(defaultGroupRatio, numberMapCheck),
  PayAddress: text('', { check: urlCheck }),
  CustomCallbackAddress: text('', { check: urlCheck }),
  // Links the console opens for every user: http(s) only (a javascript: link would run in the console's origin).
  TopUpLink: text('', { check: urlCheck }),
  'general_setting.docs_link': text('', { check: urlCheck }),
  // Card payments through Stripe Checkout (api/payments/, docs/payments.md)
  StripeApiSecret: secret(),
  StripeWebhookSecret: secret(),
  StripeUnitPrice: float(8, 0, maxMapValue),
  StripeMinTopUp: int(1, 1),
  StripeCurrency: text('usd', { check: (value) => (/^[a-z]{3}$/.test(value) ? null : '必须是三个小写字母的货币代码，如 usd') }),
  StripePromotionCodesEnabled: bool(false),
  // Mail
  SMTPServer: text(),
  SMTPPort: int(587, 1, 65535),
  SMTPAccount: text(),
  SMTPFrom: text(),
  SMTPToken: secret(),
  SMTPSSLEnabled: bool(false),
  EmailDomainRestrictionEnabled: bool(false),
  EmailAliasRestrictionEnabled: bool(false),
  EmailDomainWhitelist: text('gmail.com,yahoo.com,outlook.com,qq.com,163.com,126.com,foxmail.com'),
  // Login and registration
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  RegisterEnabled: bool(true),
  EmailVerificationEnabled: bool(false),
  GitHubOAuthEnabled: bool(false),
  GitHubClientId: text(),
  GitHubClientSecret: secret(),
  'oidc.enabled': bool(false),
  'oidc.client_id': text(),
  'oidc.client_secret': secret(),
  'oidc.well_known': text('', { check: urlCheck }),
  'oidc.authorization_endpoint': text('', { check: urlCheck }),
  'oidc.token_endpoint': text('', { check: urlCheck }),
  'oidc.user_info_endpoint': text('', { check: urlCheck }),
  LinuxDOOAuthEnabled: bool(false),
  LinuxDOClientId: text(),
  LinuxDOClientSecret: secret(),
  LinuxDOMinimumTrustLevel: int(0, 0, 4),
  WeChatAuthEnabled: bool(false),
  WeChatServerAddress: text('', { check: urlCheck }),
  WeChatServerToken: secret(),
  WeChatAccountQRCodeImageURL: text(),
  TelegramOAuthEnabled: bool(false),
  TelegramBotToken: secret(),
  TelegramBotName: text(),
  TurnstileCheckEnabled: bool(false),
  // Second factors (docs/accounts.md, "Two-factor sign-in"): admins without one must enrol; passkeys offered
  TwoFactorRequiredForAdmins: bool(false),
  'passkey.enabled': bool(false),
  TurnstileSiteKey: text(),
  TurnstileSecretKey: secret(),
  // Presentation
  Notice: text(),
  SystemName: text('ModelGate'),
  Logo: text(),
  HomePageContent: text(),
  About: text(),
  Footer: text(),
  // Quota and display
  QuotaPerUnit: float(500000, 1, 1_000_000_000),
  RetryTimes: int(0, 0, 10),
  DisplayInCurrencyEnabled: bool(true),
  DisplayTokenStatEnabled: bool(true),
  DefaultCollapseSidebar: bool(false),
  DemoSiteEnabled: bool(false),
  SelfUseModeEnabled: bool(false),
  // The ratio an unpriced model is billed at where it may be used (self-use mode, accept-unset users): new-api's 37.5.
  UnsetModelRatio: float(37.5, 0, maxMapValue),
  QuotaForNewUser: int(0),
  PreConsumedQuota: int(500),
  // The hold of a relayed call (docs/billing.md "Hold, settle, refund"): output tokens held as its likely
  // answer; below LowBalanceQuota (or a request's worst cost) a caller's calls run one at a time.
  HoldOutputTokens: int(500, 1, 1_000_000),
  LowBalanceQuota: int(500_000, 0),
  LowBalanceQueueSeconds: int(60, 1, 600),
  QuotaForInviter: int(0),
  QuotaForInvitee: int(0),
  QuotaRemindThreshold: int(1000),
  StreamCacheQueueLength: int(0),
  // Pricing (defaults are filled in by the billing module's registry extension)
  GroupRatio: json(defaultGroupRatio, numberMapCheck),
  UserUsableGroups: json({ default: '默认分组', vip: 'vip分组' }, stringMapCheck),
  // A user group's special ratio for a token group (new-api's default placeholder entry).
  GroupGroupRatio: json({ vip: { edit_this: 0.9 } }, groupGroupRatioCheck),
  // The groups an `auto` token tries, in order (those the user may use and that serve the model).
  AutoGroups: json(['default'], groupListCheck),
  ModelPrice: json(defaultModelPrice, numberMapCheck),
  ModelRatio: json(defaultModelRatio, numberMapCheck),
  CacheRatio: json(defaultCacheRatio, numberMapCheck),
  CacheCreationRatio: json(defaultCacheCreationRatio, numberMapCheck),
  CompletionRatio: json(defaultCompletionRatio, numberMapCheck),
  // The chat apps users open with a key (new-api's default links); see packages/shared/src/chats.ts.
  Chats: json(defaultChats, (value) => chatsProblem(JSON.parse(value))),
  // Channel health
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  ChannelDisableThreshold: float(5),
  // Periodic channel test (api/channels/probe/channel-checks.ts); CHANNEL_TEST_FREQUENCY overrides both.
  'monitor_setting.auto_test_channel_enabled': bool(false),
  'monitor_setting.auto_test_channel_minutes': int(10, 1, 525_600),
  // Retry policy and circuit breaker (relay/routing/retry-policy.ts, channel-cooldown.ts)
  RetryStatusCodes: text('401,403,408,429,500-503,505-523,525-599', { check: statusListCheck }),
  RetryOnConnectionError: bool(true),
  ChannelCooldownFailures: int(0, 0, 1000),
  ChannelCooldownSeconds: int(30, 1, 86_400),
  // The relay's overload guard (lib/overload-guard.ts), off by default; a threshold of 0 turns that check off.
  'performance_setting.monitor_enabled': bool(false),
  'performance_setting.monitor_event_loop_lag_ms': int(200, 0, 60_000),
  'performance_setting.monitor_cpu_threshold': float(90, 0, 10_000),
  'performance_setting.monitor_memory_threshold': float(90, 0, 100),
  // Prometheus metrics at GET /metrics (metrics/), root only: the token is a secret.
  MetricsEnabled: bool(false),
  MetricsToken: secret(),
  // Logs older than this many days are deleted daily (api/logs/log-retention.ts); 0 keeps them.
  LogRetentionDays: int(0, 0, 36_500),
  // Audit entries older than this many days are pruned daily from the oldest end (api/audit/audit-retention.ts); 0 keeps them. Root only.
  AuditLogRetentionDays: int(0, 0, 36_500),
  // Concurrency limits (tokens.max_concurrency, channel setting max_concurrency / key_max_concurrency)
  ConcurrencyQueueEnabled: bool(false),
  ConcurrencyQueueTimeoutSeconds: int(30, 1, 600),
  ConcurrencyQueueSize: int(100, 1, 100_000),
  AutomaticDisableKeywords: text(
    [
      'Your credit balance is too low',
      'This organization has been disabled.',
      'You exceeded your current quota',
      'Permission denied',
      'The security token included in the request is invalid',
      'Operation not allowed',
      'Your account is not authorized',
    ].join('\n'),
  ),
  // Logging and display
  LogConsumeEnabled: bool(true),
  /** Failed relayed calls as error log rows (type 5); off by default, as new-api's ERROR_LOG_ENABLED. */
  ErrorLogEnabled: bool(false),
  // Sensitive words
  CheckSensitiveEnabled: bool(false),
  CheckSensitiveOnPromptEnabled: bool(true),
  CheckSensitiveOnCompletionEnabled: bool(false),
  StopOnSensitiveEnabled: bool(true),
  SensitiveWords: text(''),
  // Drawing and tasks
  DrawingEnabled: bool(false),
  TaskEnabled: bool(false),
  MjNotifyEnabled: bool(false),
  MjAccountFilterEnabled: bool(false),
  MjModeClearEnabled: bool(false),
  MjForwardUrlEnabled: bool(true),
  MjActionCheckSuccessEnabled: bool(true),
  // Dashboard
  DataExportEnabled: bool(true),
  DataExportDefaultTime: text('hour', {
    check: (value) => (['hour', 'day', 'week'].includes(value) ? null : '必须是 hour、day 或 week'),
  }),
  DataExportInterval: int(5, 1),
  // Rate limit
  ModelRequestRateLimitEnabled: bool(false),
  ModelRequestRateLimitCount: int(0, 0),
  ModelRequestRateLimitSuccessCount: int(1000, 1),
  ModelRequestRateLimitDurationMinutes: int(1, 0),
  // Gemini and Claude
  'gemini.safety_settings': json({ default: 'OFF' }, safetyThresholdMapCheck),
  'gemini.version_settings': json({ default: 'v1beta' }, apiVersionMapCheck),
  'gemini.supported_imagine_models': json(['gemini-2.0-flash-exp-image-generation'], arrayCheck),
  'claude.model_headers_settings': json({}, modelHeadersCheck),
  'claude.default_max_tokens': json({ default: 8192 }, numberMapCheck),
  'claude.thinking_adapter_enabled': bool(true),
  'claude.thinking_adapter_budget_tokens_percentage': float(0.8, 0.1, 1),
  'claude.structured_output_models': json(defaultStructuredOutputModels, structuredOutputModelsCheck),
  // SSRF protection for the URLs users hand the server to call back (lib/outbound-guard.ts), as new-api's fetch_setting
  'fetch_setting.enable_ssrf_protection': bool(true),
  'fetch_setting.allow_private_ip': bool(false),
  'fetch_setting.allowed_ports': json(defaultAllowedPorts, portListCheck),
  'fetch_setting.domain_filter_mode': bool(false),
  'fetch_setting.domain_list': json([], domainListCheck),
  'fetch_setting.ip_filter_mode': bool(false),
  'fetch_setting.ip_list': json([], addressListCheck),
  'fetch_setting.apply_ip_filter_for_domain': bool(true),
  // Global
  'global.pass_through_request_enabled': bool(false),
  'general_setting.ping_interval_enabled': bool(false),
  'general_setting.ping_interval_seconds': int(60, 1),
  // The response cache (relay/cache/, docs/caching.md): off unless a group here or a token turns it on.
  'response_cache.groups': json({}, responseCacheGroupsCheck),
  'response_cache.hit_ratio': float(0, 0, 1),
  'response_cache.max_temperature': float(0, 0, 2),
  'response_cache.share_in_group': bool(false),
  'response_cache.max_entry_bytes': int(1_048_576, 1024, 67_108_864),
  'response_cache.max_bytes': int(67_108_864, 0, 68_719_476_736),
} satisfies Record<string, OptionDefinition>;

export type OptionKey = keyof typeof optionRegistry;

/**
 * Options an admin (role 10) may read and write: the operation, rate-limit, models and other tabs.
 * Everything else — the system tab (server, payment, login, mail, OAuth, bot check) — and every
 * secret belong to the root alone. A new option is root-only until it is listed here. The split is
 * written out for operators in docs/configuration.md ("Who may change which option"), which
 * test/api/options.test.ts compares with this list: a new option goes in one of its tables.
 */
const adminOptionKeys: ReadonlySet<string> = new Set<OptionKey>([
  'TopUpLink',
  'general_setting.docs_link',
  'Notice',
  'SystemName',
  'Logo',
  'HomePageContent',
  'About',
  'Footer',
  'QuotaPerUnit',
  'RetryTimes',
  'DisplayInCurrencyEnabled',
  'DisplayTokenStatEnabled',
  'DefaultCollapseSidebar',
  'DemoSiteEnabled',
  'SelfUseModeEnabled',
  'UnsetModelRatio',
  'QuotaForNewUser',
  'PreConsumedQuota',
  'HoldOutputTokens',
  'LowBalanceQuota',
  'LowBalanceQueueSeconds',
  'QuotaForInviter',
  'QuotaForInvitee',
  'QuotaRemindThreshold',
  'StreamCacheQueueLength',
  'GroupRatio',
  'UserUsableGroups',
  'GroupGroupRatio',
  'AutoGroups',
  'ModelPrice',
  'ModelRatio',
  'CacheRatio',
  'CacheCreationRatio',
  'CompletionRatio',
  'Chats',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'ChannelDisableThreshold',
  'AutomaticDisableKeywords',
  'monitor_setting.auto_test_channel_enabled',
  'monitor_setting.auto_test_channel_minutes',
  'RetryStatusCodes',
  'RetryOnConnectionError',
  'ChannelCooldownFailures',
  'ChannelCooldownSeconds',
  'ConcurrencyQueueEnabled',
  'ConcurrencyQueueTimeoutSeconds',
  'ConcurrencyQueueSize',
  'performance_setting.monitor_enabled',
  'performance_setting.monitor_event_loop_lag_ms',
  'performance_setting.monitor_cpu_threshold',
  'performance_setting.monitor_memory_threshold',
  'LogConsumeEnabled',
  'ErrorLogEnabled',
  'LogRetentionDays',
  'CheckSensitiveEnabled',
  'CheckSensitiveOnPromptEnabled',
  'CheckSensitiveOnCompletionEnabled',
  'StopOnSensitiveEnabled',
  'SensitiveWords',
  'DrawingEnabled',
  'TaskEnabled',
  'MjNotifyEnabled',
  'MjAccountFilterEnabled',
  'MjModeClearEnabled',
  'MjForwardUrlEnabled',
  'MjActionCheckSuccessEnabled',
  'DataExportEnabled',
  'DataExportDefaultTime',
  'DataExportInterval',
  'ModelRequestRateLimitEnabled',
  'ModelRequestRateLimitCount',
  'ModelRequestRateLimitSuccessCount',
  'ModelRequestRateLimitDurationMinutes',
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.supported_imagine_models',
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'claude.thinking_adapter_enabled',
  'claude.thinking_adapter_budget_tokens_percentage',
  'claude.structured_output_models',
  'global.pass_through_request_enabled',
  'general_setting.ping_interval_enabled',
  'general_setting.ping_interval_seconds',
]);

/** Whether a caller may read and write an option: the root every one, an admin the operation-side ones. */
export function canManageOption(key: OptionKey, isRoot: boolean): boolean {
  if (isRoot) return true;
  const def: OptionDefinition = optionRegistry[key];
  return adminOptionKeys.has(key) && !def.secret;
}

/**
 * Toggles that only work with other settings filled in: turning one on is refused while any of
 * them is empty. Each entry lists alternatives; one complete alternative is enough.
 */
const toggleRequirements: Partial<Record<OptionKey, { alternatives: OptionKey[][]; message: string }>> = {
  EmailVerificationEnabled: { alternatives: [['SMTPServer']], message: '请先填写 SMTP 服务器' },
  GitHubOAuthEnabled: { alternatives: [['GitHubClientId', 'GitHubClientSecret']], message: '请先填写 GitHub Client ID 和 Client Secret' },
  LinuxDOOAuthEnabled: {
    alternatives: [['LinuxDOClientId', 'LinuxDOClientSecret']],
    message: '请先填写 Linux DO Client ID 和 Client Secret',
  },
  'oidc.enabled': {
    alternatives: [
      ['oidc.client_id', 'oidc.client_secret', 'oidc.well_known'],
      ['oidc.client_id', 'oidc.client_secret', 'oidc.authorization_endpoint', 'oidc.token_endpoint', 'oidc.user_info_endpoint'],
    ],
    message: '请先填写 OIDC Client ID、Client Secret 和 Well-Known 地址（或授权、令牌、用户信息端点）',
  },
  TurnstileCheckEnabled: {
    alternatives: [['TurnstileSiteKey', 'TurnstileSecretKey']],
    message: '请先填写 Turnstile Site Key 和 Secret Key',
  },
  // The relying party (its id and origin) is the public address: passkeys are bound to it.
  'passkey.enabled': { alternatives: [['ServerAddress']], message: '请先填写服务器地址' },
  WeChatAuthEnabled: { alternatives: [['WeChatServerAddress', 'WeChatServerToken']], message: '请先填写微信服务器地址和访问凭证' },
  TelegramOAuthEnabled: { alternatives: [['TelegramBotToken', 'TelegramBotName']], message: '请先填写 Telegram Bot Token 和 Bot 名称' },
};

/** Modes that cannot be on together. */
const exclusiveToggles: Partial<Record<OptionKey, OptionKey>> = {
  SelfUseModeEnabled: 'DemoSiteEnabled',
  DemoSiteEnabled: 'SelfUseModeEnabled',
};

/**
 * Checks a value against the other options it depends on (read through `current`): a toggle turned
 * on needs its settings, and exclusive modes stay exclusive. Returns an error message or null.
 */
export function checkOptionDependencies(key: OptionKey, value: string, current: (key: OptionKey) => string): string | null {
  if (value !== 'true') return null;
  const requirement = toggleRequirements[key];
  if (requirement && !requirement.alternatives.some((keys) => keys.every((needed) => current(needed).trim() !== ''))) {
    return requirement.message;
  }
  const other = exclusiveToggles[key];
  if (other && current(other) === 'true') return accountMessages.exclusiveModes;
  return null;
}

export function isOptionKey(key: string): key is OptionKey {
  return Object.hasOwn(optionRegistry, key);
}

/** Checks a raw value against its definition; returns an error message or null when valid. */
export function validateOption(key: OptionKey, value: string): string | null {
  const def: OptionDefinition = optionRegistry[key];
  switch (def.type) {
    case 'bool':
      if (value !== 'true' && value !== 'false') return `${key} 必须是 true 或 false`;
      break;
    case 'int':
    case 'float': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) return `${key} 必须是数字`;
      if (def.type === 'int' && !Number.isInteger(n)) return `${key} 必须是整数`;
      if (def.min !== undefined && n < def.min) return `${key} 不能小于 ${def.min}`;
      if (def.max !== undefined && n > def.max) return `${key} 不能大于 ${def.max}`;
      break;
    }
    case 'json':
      try {
        JSON.parse(value);
      } catch {
        return `${key} 不是合法的 JSON 字符串`;
      }
      break;
    case 'string':
      if (value.length > 1_000_000) return `${key} 过长`;
      break;
  }
  const problem = def.check?.(value);
  return problem ? `${key} ${problem}` : null;
}
