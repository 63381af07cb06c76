import type { OptionField } from './option-fields';

const f = (key: string, kind: OptionField['kind'], labelKey: string, extra: Partial<OptionField> = {}): OptionField => ({
  key,
  kind,
  labelKey: `settingsOps.${labelKey}`,
  ...extra,
});
const json = (key: string, labelKey: string, placeholder: string) => f(key, 'json', labelKey, { placeholder });

export interface PanelSpec {
  titleKey: string;
  fields: OptionField[];
}

export const generalPanel: PanelSpec = {
  titleKey: 'settingsOps.generalPanel',
  fields: [
    f('TopUpLink', 'text', 'topUpLink', { placeholder: 'https://shop.example.com' }),
    f('general_setting.docs_link', 'url', 'docsLink', { placeholder: 'https://docs.example.com' }),
    f('QuotaPerUnit', 'number', 'quotaPerUnit', { min: 1, extraKey: 'settingsOps.quotaPerUnitWarning', isWarning: true }),
    f('RetryTimes', 'number', 'retryTimes', { min: 0, max: 10 }),
    f('DisplayInCurrencyEnabled', 'switch', 'displayInCurrency'),
    f('DisplayTokenStatEnabled', 'switch', 'displayTokenStat'),
    f('DefaultCollapseSidebar', 'switch', 'defaultCollapseSidebar'),
    f('DemoSiteEnabled', 'switch', 'demoSite'),
    f('SelfUseModeEnabled', 'switch', 'selfUseMode'),
    f('UnsetModelRatio', 'number', 'unsetModelRatio', { min: 0, max: 1_000_000, step: 0.1, extraKey: 'settingsOps.unsetModelRatioHint' }),
  ],
};

export const groupRatioPanel: PanelSpec = {
  titleKey: 'settingsOps.groupPanel',
  fields: [
    json('GroupRatio', 'groupRatio', '{"default": 1, "vip": 1}'),
    json('UserUsableGroups', 'userUsableGroups', '{"default": "默认分组", "vip": "vip分组", "auto": "自动选择"}'),
    json('GroupGroupRatio', 'groupGroupRatio', '{"vip": {"default": 0.9}}'),
    json('AutoGroups', 'autoGroups', '["default", "vip"]'),
  ],
};

export const modelRatioPanel: PanelSpec = {
  titleKey: 'settingsOps.modelRatioPanel',
  fields: [
    json('ModelPrice', 'modelPrice', '{"gpt-4-gizmo-*": 0.1}'),
    json('ModelRatio', 'modelRatio', '{"gpt-4o-mini": 0.075}'),
    json('CacheRatio', 'cacheRatio', '{"gpt-4o-mini": 0.5}'),
    {
      ...json('CacheCreationRatio', 'cacheCreationRatio', '{"claude-3-haiku-20240307": 1.2}'),
      extraKey: 'settingsOps.cacheCreationRatioHint',
    },
    json('CompletionRatio', 'completionRatio', '{"gpt-4o-mini": 4}'),
  ],
};

/** The raw Chats JSON (ChatsSettings' second tab; the first is the visual ChatsEditor). */
export const chatsPanel: PanelSpec = {
  titleKey: 'settingsOps.chatsJson',
  fields: [
    { ...json('Chats', 'chats', '[{"OpenCat": "opencat://team/join?domain={address}&token={key}"}]'), extraKey: 'settingsOps.chatsHint' },
  ],
};

export const drawingPanel: PanelSpec = {
  titleKey: 'settingsOps.drawingPanel',
  fields: [
    f('DrawingEnabled', 'switch', 'drawingEnabled'),
    f('TaskEnabled', 'switch', 'taskEnabled'),
    f('MjNotifyEnabled', 'switch', 'mjNotify'),
    f('MjAccountFilterEnabled', 'switch', 'mjAccountFilter'),
    f('MjModeClearEnabled', 'switch', 'mjModeClear'),
    f('MjForwardUrlEnabled', 'switch', 'mjForwardUrl'),
    f('MjActionCheckSuccessEnabled', 'switch', 'mjActionCheckSuccess'),
  ],
};

export const sensitivePanel: PanelSpec = {
  titleKey: 'settingsOps.sensitivePanel',
  fields: [
    f('CheckSensitiveEnabled', 'switch', 'checkSensitive', { span: 12 }),
    f('CheckSensitiveOnPromptEnabled', 'switch', 'checkSensitiveOnPrompt', { span: 12 }),
    f('CheckSensitiveOnCompletionEnabled', 'switch', 'checkSensitiveOnCompletion', { span: 12 }),
    f('StopOnSensitiveEnabled', 'switch', 'stopOnSensitive', { span: 12 }),
    f('SensitiveWords', 'textarea', 'sensitiveWords', { extraKey: 'settingsOps.sensitiveWordsHint' }),
  ],
};

export const logsPanel: PanelSpec = {
  titleKey: 'settingsOps.logsPanel',
  fields: [
    f('LogConsumeEnabled', 'switch', 'logConsume', { span: 12 }),
    f('ErrorLogEnabled', 'switch', 'logError', { span: 12, extraKey: 'settingsOps.logErrorHint' }),
    f('LogRetentionDays', 'number', 'logRetentionDays', { min: 0, max: 36500, extraKey: 'settingsOps.logRetentionDaysHint' }),
  ],
};

export const dashboardPanel: PanelSpec = {
  titleKey: 'settingsOps.dashboardPanel',
  fields: [
    f('DataExportEnabled', 'switch', 'dataExport', { span: 24 }),
    f('DataExportInterval', 'number', 'dataExportInterval', { min: 1, extraKey: 'settingsOps.dataExportIntervalHint' }),
    f('DataExportDefaultTime', 'select', 'dataExportDefaultTime', {
      choices: ['hour', 'day', 'week'].map((value) => ({ value, labelKey: `settingsOps.granularity.${value}` })),
    }),
  ],
};

export const monitoringPanel: PanelSpec = {
  titleKey: 'settingsOps.monitoringPanel',
  fields: [
    f('ChannelDisableThreshold', 'number', 'channelDisableThreshold', {
      min: 0,
      span: 24,
      extraKey: 'settingsOps.channelDisableThresholdHint',
    }),
    f('AutomaticDisableChannelEnabled', 'switch', 'autoDisable', { span: 12 }),
    f('AutomaticEnableChannelEnabled', 'switch', 'autoEnable', { span: 12 }),
    f('AutomaticDisableKeywords', 'textarea', 'autoDisableKeywords', { extraKey: 'settingsOps.autoDisableKeywordsHint' }),
    f('monitor_setting.auto_test_channel_enabled', 'switch', 'autoTestChannel', { span: 12 }),
    f('monitor_setting.auto_test_channel_minutes', 'number', 'autoTestChannelMinutes', {
      min: 1,
      span: 12,
      enabledBy: 'monitor_setting.auto_test_channel_enabled',
      extraKey: 'settingsOps.autoTestChannelMinutesHint',
    }),
  ],
};

/** Retry policy, circuit breaker and the concurrency queue (docs/relay.md "Limits and routing"). */
export const reliabilityPanel: PanelSpec = {
  titleKey: 'settingsOps.reliabilityPanel',
  fields: [
    f('RetryStatusCodes', 'text', 'retryStatusCodes', {
      span: 24,
      placeholder: '401,403,408,429,500-503,505-523,525-599',
      extraKey: 'settingsOps.retryStatusCodesHint',
    }),
    f('RetryOnConnectionError', 'switch', 'retryOnConnectionError', { span: 24 }),
    f('ChannelCooldownFailures', 'number', 'channelCooldownFailures', {
      min: 0,
      max: 1000,
      extraKey: 'settingsOps.channelCooldownFailuresHint',
    }),
    f('ChannelCooldownSeconds', 'number', 'channelCooldownSeconds', { min: 1, max: 86400 }),
    f('ConcurrencyQueueEnabled', 'switch', 'concurrencyQueue', { span: 24, extraKey: 'settingsOps.concurrencyQueueHint' }),
    f('ConcurrencyQueueTimeoutSeconds', 'number', 'concurrencyQueueTimeout', { min: 1, max: 600 }),
    f('ConcurrencyQueueSize', 'number', 'concurrencyQueueSize', { min: 1, max: 100000 }),
  ],
};

/** The relay's overload guard (docs/relay.md "Overload guard"): thresholds apply while the switch is on. */
export const performancePanel: PanelSpec = {
  titleKey: 'settingsOps.performancePanel',
  fields: [
    f('performance_setting.monitor_enabled', 'switch', 'monitorEnabled', { span: 24, extraKey: 'settingsOps.monitorEnabledHint' }),
    ...(
      [
        ['performance_setting.monitor_event_loop_lag_ms', 'monitorEventLoopLag', 60000, undefined],
        ['performance_setting.monitor_cpu_threshold', 'monitorCpu', 10000, 'settingsOps.monitorCpuHint'],
        ['performance_setting.monitor_memory_threshold', 'monitorMemory', 100, 'settingsOps.monitorMemoryHint'],
      ] as const
    ).map(([key, label, max, extraKey]) =>
      f(key, 'number', label, { min: 0, max, span: 8, enabledBy: 'performance_setting.monitor_enabled', extraKey }),
    ),
  ],
};

export const quotaPanel: PanelSpec = {
  titleKey: 'settingsOps.quotaPanel',
  fields: [
    f('QuotaForNewUser', 'number', 'quotaForNewUser', { min: 0 }),
    f('PreConsumedQuota', 'number', 'preConsumedQuota', { min: 0 }),
    f('HoldOutputTokens', 'number', 'holdOutputTokens', { min: 1, max: 1000000, extraKey: 'settingsOps.holdOutputTokensHint' }),
    f('LowBalanceQuota', 'number', 'lowBalanceQuota', { min: 0, extraKey: 'settingsOps.lowBalanceQuotaHint' }),
    f('LowBalanceQueueSeconds', 'number', 'lowBalanceQueueSeconds', { min: 1, max: 600 }),
    f('QuotaForInviter', 'number', 'quotaForInviter', { min: 0 }),
    f('QuotaForInvitee', 'number', 'quotaForInvitee', { min: 0 }),
    f('QuotaRemindThreshold', 'number', 'quotaRemindThreshold', { min: 0 }),
    f('StreamCacheQueueLength', 'number', 'streamCacheQueueLength', { min: 0, extraKey: 'settingsOps.streamCacheQueueLengthHint' }),
  ],
};

export const rateLimitPanel: PanelSpec = {
  titleKey: 'settingsOps.rateLimitPanel',
  fields: [
    f('ModelRequestRateLimitEnabled', 'switch', 'rateLimitEnabled', { span: 24 }),
    f('ModelRequestRateLimitDurationMinutes', 'number', 'rateLimitDuration', {
      min: 0,
      span: 8,
      extraKey: 'settingsOps.rateLimitDurationHint',
    }),
    f('ModelRequestRateLimitCount', 'number', 'rateLimitCount', { min: 0, span: 8, extraKey: 'settingsOps.rateLimitCountHint' }),
    f('ModelRequestRateLimitSuccessCount', 'number', 'rateLimitSuccessCount', {
      min: 1,
      span: 8,
      extraKey: 'settingsOps.rateLimitSuccessCountHint',
    }),
  ],
};

export const geminiPanel: PanelSpec = {
  titleKey: 'settingsOps.geminiPanel',
  fields: [
    json('gemini.safety_settings', 'geminiSafety', '{"default": "OFF"}'),
    json('gemini.version_settings', 'geminiVersion', '{"default": "v1beta"}'),
    json('gemini.supported_imagine_models', 'geminiImagine', '["gemini-2.0-flash-exp-image-generation"]'),
  ],
};

export const claudePanel: PanelSpec = {
  titleKey: 'settingsOps.claudePanel',
  fields: [
    json(
      'claude.model_headers_settings',
      'claudeHeaders',
      '{"claude-3-7-sonnet-20250219": {"anthropic-beta": ["output-128k-2025-02-19"]}}',
    ),
    json('claude.default_max_tokens', 'claudeMaxTokens', '{"default": 8192}'),
    f('claude.structured_output_models', 'json', 'claudeStructuredOutput', {
      placeholder: '["claude-sonnet-4-5", "claude-haiku-4-5"]',
      extraKey: 'settingsOps.claudeStructuredOutputHint',
    }),
    f('claude.thinking_adapter_enabled', 'switch', 'claudeThinking', { span: 12 }),
    f('claude.thinking_adapter_budget_tokens_percentage', 'number', 'claudeBudget', {
      min: 0.1,
      max: 1,
      step: 0.1,
      span: 12,
      extraKey: 'settingsOps.claudeBudgetHint',
    }),
  ],
};

export const globalPanel: PanelSpec = {
  titleKey: 'settingsOps.globalPanel',
  fields: [
    f('global.pass_through_request_enabled', 'switch', 'passThrough', { span: 24, extraKey: 'settingsOps.passThroughHint' }),
    f('general_setting.ping_interval_enabled', 'switch', 'pingEnabled', { span: 12 }),
    f('general_setting.ping_interval_seconds', 'number', 'pingInterval', {
      min: 1,
      span: 12,
      enabledBy: 'general_setting.ping_interval_enabled',
      extraKey: 'settingsOps.pingIntervalHint',
    }),
  ],
};
