import type { PlatformStatus } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import i18n from './i18n';
import { showError } from './feedback';
import { ApiError, http } from './http';
import { readJson, readString, StorageKey, writeJson, writeString } from './storage-keys';

/** The platform status object held locally: GET /api/status's answer (packages/shared's platformStatusSchema). */
export type { PlatformStatus };

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
