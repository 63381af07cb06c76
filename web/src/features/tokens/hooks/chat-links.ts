import { tokenKeyPrefix } from '@modelgate/shared';
import { storedStatus } from '../../../lib/status';
import { readJson, StorageKey } from '../../../lib/storage-keys';

export interface ChatLink {
  name: string;
  link: string;
}

/** The Chats option (kept in local storage 'chats'): an array of { name: link } objects. */
export function readChatLinks(): ChatLink[] {
  const chats = readJson<unknown>(StorageKey.chats);
  if (!Array.isArray(chats)) return [];
  return chats.flatMap((entry) =>
    typeof entry === 'object' && entry !== null ? Object.entries(entry as Record<string, unknown>).filter(([, link]) => typeof link === 'string').map(([name, link]) => ({ name, link: link as string })) : [],
  );
}

export const fullKey = (key: string): string => `${tokenKeyPrefix}${key}`;

/** Substitutes {key} (with sk-) and {address} (the server address) into a chat link. */
export function chatUrl(link: string, key: string): string {
  const address = (storedStatus()?.server_address as string | undefined) || window.location.origin;
  return link.replaceAll('{address}', encodeURIComponent(address)).replaceAll('{key}', fullKey(key));
}
