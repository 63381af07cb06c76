import type { AppContext } from '../../context.js';
import { serverAddressOf } from '../../lib/server-address.js';
import { stripeSettingsOf } from '../payments/stripe.js';
import { epaySettingsOf } from '../topup/epay.js';

/** The platform status object, read by the console at start. */
export async function getStatus(ctx: AppContext, isSetupDone: boolean) {
  const o = ctx.options;
  const stripe = stripeSettingsOf(o);
  return {
    version: ctx.config.version,
    start_time: ctx.startTime,
    system_name: o.get('SystemName'),
    logo: o.get('Logo'),
    footer_html: o.get('Footer'),
    // Normalized as the server builds its URLs, so the console's OIDC redirect_uri matches the one the code is exchanged with.
    server_address: serverAddressOf(o) ?? '',
    top_up_link: o.get('TopUpLink'),
    price: o.number('Price'),
    min_topup: o.number('MinTopUp'),
    // The payment methods the wallet offers: Epay (zfb, wx) and cards through Stripe, each when configured.
    enable_online_topup: epaySettingsOf(o) !== null,
    enable_stripe_topup: stripe !== null,
    stripe_min_topup: o.number('StripeMinTopUp'),
    stripe_unit_price: o.number('StripeUnitPrice'),
    stripe_currency: o.get('StripeCurrency'),
    quota_per_unit: o.number('QuotaPerUnit'),
    display_in_currency: o.bool('DisplayInCurrencyEnabled'),
    enable_drawing: o.bool('DrawingEnabled'),
    enable_task: o.bool('TaskEnabled'),
    enable_data_export: o.bool('DataExportEnabled'),
    data_export_default_time: o.get('DataExportDefaultTime'),
    default_collapse_sidebar: o.bool('DefaultCollapseSidebar'),
    mj_notify_enabled: o.bool('MjNotifyEnabled'),
    chats: o.json<unknown[]>('Chats'),
    docs_link: o.get('general_setting.docs_link'),
    email_verification: o.bool('EmailVerificationEnabled'),
    password_login_enabled: o.bool('PasswordLoginEnabled'),
    password_register_enabled: o.bool('PasswordRegisterEnabled'),
    register_enabled: o.bool('RegisterEnabled'),
    turnstile_check: o.bool('TurnstileCheckEnabled'),
    turnstile_site_key: o.get('TurnstileSiteKey'),
    passkey_login: o.bool('passkey.enabled'),
    github_oauth: o.bool('GitHubOAuthEnabled'),
    github_client_id: o.get('GitHubClientId'),
    oidc_enabled: o.bool('oidc.enabled'),
    oidc_client_id: o.get('oidc.client_id'),
    oidc_authorization_endpoint: o.get('oidc.authorization_endpoint'),
    linuxdo_oauth: o.bool('LinuxDOOAuthEnabled'),
    linuxdo_client_id: o.get('LinuxDOClientId'),
    wechat_login: o.bool('WeChatAuthEnabled'),
    wechat_qrcode: o.get('WeChatAccountQRCodeImageURL'),
    telegram_oauth: o.bool('TelegramOAuthEnabled'),
    telegram_bot_name: o.get('TelegramBotName'),
    display_token_stat: o.bool('DisplayTokenStatEnabled'),
    setup: isSetupDone,
    self_use_mode_enabled: o.bool('SelfUseModeEnabled'),
    demo_site_enabled: o.bool('DemoSiteEnabled'),
  };
}
