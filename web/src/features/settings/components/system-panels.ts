import type { OptionField } from './option-fields';

const f = (key: string, kind: OptionField['kind'], labelKey: string, extra: Partial<OptionField> = {}): OptionField => ({
  key,
  kind,
  labelKey,
  ...extra,
});

export const generalFields: OptionField[] = [
  f('ServerAddress', 'url', 'settings.serverAddress', { placeholder: 'https://example.com', extraKey: 'settings.serverAddressHint' }),
  f('general_setting.docs_link', 'url', 'settings.docsLink', { placeholder: 'https://docs.example.com' }),
  f('WorkerUrl', 'url', 'settings.workerUrl', { placeholder: 'https://worker.example.com' }),
  f('WorkerValidKey', 'secret', 'settings.workerValidKey'),
];

export const paymentFields: OptionField[] = [
  f('PayAddress', 'url', 'settings.payAddress', { placeholder: 'https://pay.example.com' }),
  f('EpayId', 'text', 'settings.epayId'),
  f('EpayKey', 'secret', 'settings.epayKey'),
  f('Price', 'number', 'settings.price', { min: 0, extraKey: 'settings.priceHint' }),
  f('MinTopUp', 'number', 'settings.minTopUp', { min: 0 }),
  f('CustomCallbackAddress', 'url', 'settings.callbackAddress', { placeholder: 'https://example.com' }),
  f('TopUpLink', 'text', 'settings.topUpLink', { placeholder: 'https://shop.example.com' }),
  f('TopupGroupRatio', 'json', 'settings.topupGroupRatio', {
    jsonErrorKey: 'settings.topupGroupRatioInvalid',
    placeholder: '{"default": 1}',
  }),
];

/** Card payments through Stripe Checkout (docs/payments.md); the webhook is {ServerAddress}/api/stripe/webhook. */
export const stripeFields: OptionField[] = [
  f('StripeApiSecret', 'secret', 'settings.stripeApiSecret', { placeholder: 'sk_live_…' }),
  f('StripeWebhookSecret', 'secret', 'settings.stripeWebhookSecret', { placeholder: 'whsec_…', extraKey: 'settings.stripeWebhookHint' }),
  f('StripeUnitPrice', 'number', 'settings.stripeUnitPrice', { min: 0, step: 0.01 }),
  f('StripeMinTopUp', 'number', 'settings.stripeMinTopUp', { min: 1 }),
  f('StripeCurrency', 'text', 'settings.stripeCurrency', { placeholder: 'usd' }),
  f('StripePromotionCodesEnabled', 'switch', 'settings.stripePromotionCodes'),
];

export const loginFields: OptionField[] = [
  f('PasswordLoginEnabled', 'switch', 'settings.passwordLogin', { confirmOffKey: 'settings.passwordLoginOffConfirm' }),
  f('PasswordRegisterEnabled', 'switch', 'settings.passwordRegister'),
  f('EmailVerificationEnabled', 'switch', 'settings.emailVerification'),
  f('RegisterEnabled', 'switch', 'settings.registerEnabled'),
  f('GitHubOAuthEnabled', 'switch', 'settings.githubOAuth'),
  f('oidc.enabled', 'switch', 'settings.oidcOAuth'),
  f('LinuxDOOAuthEnabled', 'switch', 'settings.linuxdoOAuth'),
  f('WeChatAuthEnabled', 'switch', 'settings.wechatAuth'),
  f('TelegramOAuthEnabled', 'switch', 'settings.telegramOAuth'),
  f('TurnstileCheckEnabled', 'switch', 'settings.turnstileCheck'),
  f('TwoFactorRequiredForAdmins', 'switch', 'twoFactor.requiredForAdmins', { extraKey: 'twoFactor.requiredForAdminsHint' }),
  f('passkey.enabled', 'switch', 'twoFactor.passkeyOption', { extraKey: 'twoFactor.passkeyOptionHint' }),
];

export const emailDomainFields: OptionField[] = [
  f('EmailDomainRestrictionEnabled', 'switch', 'settings.emailDomainRestriction', { span: 12 }),
  f('EmailAliasRestrictionEnabled', 'switch', 'settings.emailAliasRestriction', { span: 12 }),
  f('EmailDomainWhitelist', 'tags', 'settings.emailDomainWhitelist', { span: 24, extraKey: 'settings.emailDomainWhitelistHint' }),
];

/** Prometheus metrics at GET /metrics (root only: the token is a secret). */
export const metricsFields: OptionField[] = [
  f('MetricsEnabled', 'switch', 'settings.metricsEnabled', { span: 24, extraKey: 'settings.metricsHint' }),
  f('MetricsToken', 'secret', 'settings.metricsToken'),
];

/** The response cache (docs/caching.md): which groups cache and for how long, what a hit costs, what is kept. */
export const responseCacheFields: OptionField[] = [
  f('response_cache.groups', 'json', 'settings.responseCacheGroups', {
    span: 24,
    jsonErrorKey: 'settings.responseCacheGroupsInvalid',
    placeholder: '{"default": 300}',
    extraKey: 'settings.responseCacheGroupsHint',
  }),
  f('response_cache.hit_ratio', 'number', 'settings.responseCacheHitRatio', {
    min: 0,
    max: 1,
    step: 0.05,
    extraKey: 'settings.responseCacheHitRatioHint',
  }),
  f('response_cache.max_temperature', 'number', 'settings.responseCacheMaxTemperature', {
    min: 0,
    max: 2,
    step: 0.1,
    extraKey: 'settings.responseCacheMaxTemperatureHint',
  }),
  f('response_cache.share_in_group', 'switch', 'settings.responseCacheShareInGroup', {
    span: 24,
    extraKey: 'settings.responseCacheShareInGroupHint',
  }),
  f('response_cache.max_entry_bytes', 'number', 'settings.responseCacheMaxEntryBytes', { min: 1024, step: 1024 }),
  f('response_cache.max_bytes', 'number', 'settings.responseCacheMaxBytes', {
    min: 0,
    step: 1_048_576,
    extraKey: 'settings.responseCacheMaxBytesHint',
  }),
];

/** How a domain or address list is read: true = allow list, false = block list (new-api's fetch_setting modes). */
const listModes = [
  { value: 'false', labelKey: 'settings.ssrfBlockList' },
  { value: 'true', labelKey: 'settings.ssrfAllowList' },
];

/** SSRF protection of the URLs users hand the server to call back (webhooks, Midjourney notifyHook); docs/configuration.md. */
export const fetchFields: OptionField[] = [
  f('fetch_setting.enable_ssrf_protection', 'switch', 'settings.ssrfProtection', { span: 24, extraKey: 'settings.ssrfProtectionHint' }),
  f('fetch_setting.allow_private_ip', 'switch', 'settings.ssrfAllowPrivateIp'),
  f('fetch_setting.allowed_ports', 'json', 'settings.ssrfAllowedPorts', {
    jsonErrorKey: 'settings.ssrfAllowedPortsInvalid',
    placeholder: '["80", "443", "8080", "8443"]',
  }),
  f('fetch_setting.domain_filter_mode', 'select', 'settings.ssrfDomainMode', { choices: listModes }),
  f('fetch_setting.domain_list', 'json', 'settings.ssrfDomainList', {
    jsonErrorKey: 'settings.ssrfDomainListInvalid',
    placeholder: '["hooks.example.com", "*.example.org"]',
    extraKey: 'settings.ssrfDomainListHint',
  }),
  f('fetch_setting.ip_filter_mode', 'select', 'settings.ssrfIpMode', { choices: listModes }),
  f('fetch_setting.ip_list', 'json', 'settings.ssrfIpList', {
    jsonErrorKey: 'settings.ssrfIpListInvalid',
    placeholder: '["203.0.113.7", "10.0.0.0/8"]',
    extraKey: 'settings.ssrfIpListHint',
  }),
  f('fetch_setting.apply_ip_filter_for_domain', 'switch', 'settings.ssrfIpListForNames', {
    span: 24,
    extraKey: 'settings.ssrfIpListForNamesHint',
  }),
];

export const smtpFields: OptionField[] = [
  f('SMTPServer', 'text', 'settings.smtpServer', { placeholder: 'smtp.example.com' }),
  f('SMTPPort', 'number', 'settings.smtpPort', { min: 1 }),
  f('SMTPAccount', 'text', 'settings.smtpAccount'),
  f('SMTPFrom', 'text', 'settings.smtpFrom'),
  f('SMTPToken', 'secret', 'settings.smtpToken'),
  f('SMTPSSLEnabled', 'switch', 'settings.smtpSsl'),
];

export const oidcFields: OptionField[] = [
  f('oidc.well_known', 'url', 'settings.oidcWellKnown', {
    span: 24,
    placeholder: 'https://idp.example.com/.well-known/openid-configuration',
    extraKey: 'settings.oidcWellKnownHint',
  }),
  f('oidc.client_id', 'text', 'settings.clientId'),
  f('oidc.client_secret', 'secret', 'settings.clientSecret'),
  f('oidc.authorization_endpoint', 'url', 'settings.oidcAuthorization'),
  f('oidc.token_endpoint', 'url', 'settings.oidcToken'),
  f('oidc.user_info_endpoint', 'url', 'settings.oidcUserInfo'),
];

export const githubFields: OptionField[] = [
  f('GitHubClientId', 'text', 'settings.clientId'),
  f('GitHubClientSecret', 'secret', 'settings.clientSecret'),
];

export const linuxdoFields: OptionField[] = [
  f('LinuxDOClientId', 'text', 'settings.clientId'),
  f('LinuxDOClientSecret', 'secret', 'settings.clientSecret'),
  f('LinuxDOMinimumTrustLevel', 'number', 'oauth.linuxDoMinTrustLevel', { min: 0, max: 4 }),
];

export const wechatFields: OptionField[] = [
  f('WeChatServerAddress', 'url', 'settings.wechatServer'),
  f('WeChatServerToken', 'secret', 'settings.wechatToken'),
  f('WeChatAccountQRCodeImageURL', 'text', 'settings.wechatQrcode', { span: 24 }),
];

export const telegramFields: OptionField[] = [
  f('TelegramBotName', 'text', 'settings.telegramBotName'),
  f('TelegramBotToken', 'secret', 'settings.telegramBotToken'),
];

export const turnstileFields: OptionField[] = [
  f('TurnstileSiteKey', 'text', 'settings.turnstileSiteKey'),
  f('TurnstileSecretKey', 'secret', 'settings.turnstileSecretKey'),
];

export const presentationPanels: { key: string; titleKey: string; fields: OptionField[] }[] = [
  {
    key: 'notice',
    titleKey: 'settings.noticePanel',
    fields: [f('Notice', 'textarea', 'settings.notice', { extraKey: 'settings.markdownHint' })],
  },
  { key: 'name', titleKey: 'settings.systemNamePanel', fields: [f('SystemName', 'text', 'settings.systemName', { span: 24 })] },
  {
    key: 'logo',
    titleKey: 'settings.logoPanel',
    fields: [f('Logo', 'text', 'settings.logo', { span: 24, placeholder: 'https://example.com/logo.png' })],
  },
  {
    key: 'home',
    titleKey: 'settings.homePanel',
    fields: [f('HomePageContent', 'textarea', 'settings.homePageContent', { extraKey: 'settings.homeHint' })],
  },
  { key: 'about', titleKey: 'settings.aboutPanel', fields: [f('About', 'textarea', 'settings.about', { extraKey: 'settings.aboutHint' })] },
  {
    key: 'footer',
    titleKey: 'settings.footerPanel',
    fields: [f('Footer', 'textarea', 'settings.footer', { extraKey: 'settings.footerHint' })],
  },
];
