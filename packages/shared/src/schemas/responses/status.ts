import { z } from 'zod';

/** The platform status (GET /api/status), read by the console at start and kept in local storage. */
export const platformStatusSchema = z.strictObject({
  version: z.string(),
  /** When this instance started, unix seconds. */
  start_time: z.number().int(),
  system_name: z.string(),
  logo: z.string(),
  footer_html: z.string(),
  /** Normalized as the server builds its URLs ('' when unset). */
  server_address: z.string(),
  top_up_link: z.string(),
  price: z.number(),
  min_topup: z.number().int(),
  enable_online_topup: z.boolean(),
  enable_stripe_topup: z.boolean(),
  stripe_min_topup: z.number().int(),
  stripe_unit_price: z.number(),
  stripe_currency: z.string(),
  quota_per_unit: z.number(),
  display_in_currency: z.boolean(),
  enable_drawing: z.boolean(),
  enable_task: z.boolean(),
  enable_data_export: z.boolean(),
  data_export_default_time: z.string(),
  default_collapse_sidebar: z.boolean(),
  mj_notify_enabled: z.boolean(),
  /** The Chats option: `{ name: link }` objects. */
  chats: z.array(z.record(z.string(), z.string())),
  docs_link: z.string(),
  email_verification: z.boolean(),
  password_login_enabled: z.boolean(),
  password_register_enabled: z.boolean(),
  register_enabled: z.boolean(),
  turnstile_check: z.boolean(),
  turnstile_site_key: z.string(),
  /** Passkeys offered (sign-in instead of the password, and in the personal settings). */
  passkey_login: z.boolean(),
  github_oauth: z.boolean(),
  github_client_id: z.string(),
  oidc_enabled: z.boolean(),
  oidc_client_id: z.string(),
  oidc_authorization_endpoint: z.string(),
  linuxdo_oauth: z.boolean(),
  linuxdo_client_id: z.string(),
  wechat_login: z.boolean(),
  wechat_qrcode: z.string(),
  telegram_oauth: z.boolean(),
  telegram_bot_name: z.string(),
  display_token_stat: z.boolean(),
  /** The first-run setup is done. */
  setup: z.boolean(),
  self_use_mode_enabled: z.boolean(),
  demo_site_enabled: z.boolean(),
});
export type PlatformStatus = z.infer<typeof platformStatusSchema>;

/** GET /api/notice, /api/about and /api/home_page_content: the option's text (Markdown, HTML or a link). */
export const pageContentSchema = z.string();
