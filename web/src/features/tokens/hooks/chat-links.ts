import { chatRows, tokenKeyPrefix } from '@modelgate/shared';
import { isOpenableChatLink, resolveChatLink } from '../../../lib/chat-links';
import { storedStatus } from '../../../lib/status';
import { readJson, StorageKey } from '../../../lib/storage-keys';

export interface ChatLink {
  name: string;
  link: string;
}

/** The Chats option (kept in local storage 'chats') as { name, link } rows the console can open. */
export function readChatLinks(): ChatLink[] {
  return chatRows(readJson<unknown>(StorageKey.chats)).filter((row) => isOpenableChatLink(row.link));
}

export const fullKey = (key: string): string => `${tokenKeyPrefix}${key}`;

/** The chat link filled in for this token and the server address (lib/chat-links.ts). */
export function chatUrl(link: string, key: string): string {
  const address = (storedStatus()?.server_address as string | undefined) || window.location.origin;
  return resolveChatLink(link, key, address);
}
