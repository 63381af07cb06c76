import type { ProviderName } from './types.js';

/** The users column of each provider, its display name and its enable option. */
export const providerInfo = {
  github: { column: 'github_id', label: 'GitHub', enabledOption: 'GitHubOAuthEnabled' },
  oidc: { column: 'oidc_id', label: 'OIDC', enabledOption: 'oidc.enabled' },
  linuxdo: { column: 'linux_do_id', label: 'Linux DO', enabledOption: 'LinuxDOOAuthEnabled' },
  wechat: { column: 'wechat_id', label: '微信', enabledOption: 'WeChatAuthEnabled' },
  telegram: { column: 'telegram_id', label: 'Telegram', enabledOption: 'TelegramOAuthEnabled' },
} as const satisfies Record<ProviderName, { column: string; label: string; enabledOption: string }>;

export const providerNames = Object.keys(providerInfo) as ProviderName[];
