import { useQuery } from '@tanstack/react-query';
import i18n from './i18n';
import { showError } from './feedback';
import { ApiError, http } from './http';
import { readJson, readString, StorageKey, writeJson, writeString } from './storage-keys';

/** The platform status object held locally. */
export interface PlatformStatus {
  setup: boolean;
  self_use_mode_enabled: boolean;
  demo_site_enabled: boolean;
  system_name: string;
  logo: string;
  footer_html: string;
  quota_per_unit: number;
  display_in_currency: boolean;
  enable_drawing: boolean;
  enable_task: boolean;
  enable_data_export: boolean;
  chats: unknown[] | null;
  docs_link: string;
  version: string;
  start_time: number;
  email_verification: boolean;
  register_enabled: boolean;
  password_login_enabled: boolean;
  password_register_enabled: boolean;
  turnstile_check: boolean;
  /** Passkeys offered (sign-in instead of the password, and in the personal settings). */
  passkey_login?: boolean;
  turnstile_site_key: string;
  github_oauth: boolean;
  github_client_id: string;
  oidc_enabled: boolean;
  oidc_client_id: string;
  oidc_authorization_endpoint: string;
  linuxdo_oauth: boolean;
  linuxdo_client_id: string;
  wechat_login: boolean;
  wechat_qrcode: string;
  telegram_oauth: boolean;
  telegram_bot_name: string;
  default_collapse_sidebar: boolean;
  mj_notify_enabled: boolean;
  server_address?: string;
  top_up_link?: string;
  [key: string]: unknown;
}

export const statusQueryKey = ['status'] as const;

/** Keeps the status and the flags derived from it in local storage, as the spec lists. */
export function storeStatus(status: PlatformStatus): void {
  writeJson(StorageKey.status, status);
  writeString(StorageKey.enableDataExport, String(!!status.enable_data_export));
  writeString(StorageKey.enableDrawing, String(!!status.enable_drawing));
  writeString(StorageKey.enableTask, String(!!status.enable_task));
  writeString(StorageKey.mjNotifyEnabled, String(!!status.mj_notify_enabled));
  writeString(StorageKey.footerHtml, status.footer_html ?? '');
  writeJson(StorageKey.chats, Array.isArray(status.chats) ? status.chats : []);
  if (readString(StorageKey.defaultCollapseSidebar) === null) {
    writeString(StorageKey.defaultCollapseSidebar, String(!!status.default_collapse_sidebar));
  }
  if (status.system_name) document.title = status.system_name;
}

export async function fetchStatus(): Promise<PlatformStatus> {
  try {
    const status = await http.get<PlatformStatus>('/api/status', { silent: true, noAuthRedirect: true });
    storeStatus(status);
    return status;
  } catch (error) {
    const isNetwork = error instanceof ApiError && error.status === 0;
    showError(i18n.t(isNetwork ? 'status.unreachable' : 'status.loadFailed'));
    throw error;
  }
}

export const storedStatus = (): PlatformStatus | null => readJson<PlatformStatus>(StorageKey.status);

export function useStatus() {
  return useQuery({
    queryKey: statusQueryKey,
    queryFn: fetchStatus,
    staleTime: 60_000,
    retry: false,
    refetchOnWindowFocus: false,
  });
}
