/** Every local-storage key the console uses. */
export const StorageKey = {
  user: 'user',
  status: 'status',
  chats: 'chats',
  themeMode: 'theme-mode',
  defaultCollapseSidebar: 'default_collapse_sidebar',
  enableDataExport: 'enable_data_export',
  enableDrawing: 'enable_drawing',
  enableTask: 'enable_task',
  footerHtml: 'footer_html',
  mjNotifyEnabled: 'mj_notify_enabled',
  language: 'i18nextLng',
  pageSize: 'page-size',
  idSort: 'id-sort',
  channelsTableColumns: 'channels-table-columns',
  logsTableColumns: 'logs-table-columns',
} as const;

export type StorageKeyName = (typeof StorageKey)[keyof typeof StorageKey];

export function readString(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeString(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage full or disabled: the console keeps working with in-memory state
  }
}

export function removeKey(key: string): void {
  try {
    localStorage.removeItem(key);
  } catch {
    // ignore
  }
}

export function readJson<T>(key: string): T | null {
  const raw = readString(key);
  if (raw === null || raw === '') return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function writeJson(key: string, value: unknown): void {
  writeString(key, JSON.stringify(value));
}

export function readFlag(key: string): boolean {
  return readString(key) === 'true';
}
