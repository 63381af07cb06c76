import { chatLinkKind } from '@modelgate/shared';
import { resolveChatLink } from '../../../lib/chat-links';
import type { PlatformStatus } from '../../../lib/status';
import { readJson, StorageKey } from '../../../lib/storage-keys';

export type ChatLinkProblem = 'notConfigured' | 'badConfig';

/**
 * The configured chat link at an index of the Chats option (status chats, else local 'chats'): an
 * http(s) page (`web`, framed) or an app's own link (`app`, opened); anything else is a bad entry.
 */
export function chatLinkAt(
  status: PlatformStatus | null,
  index: number,
): { link: string; kind: 'web' | 'app' } | { problem: ChatLinkProblem } {
  const chats = Array.isArray(status?.chats) ? status.chats : readJson<unknown[]>(StorageKey.chats);
  if (!Array.isArray(chats) || chats.length === 0) return { problem: 'notConfigured' };
  const entry = chats[index];
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { problem: 'badConfig' };
  const link = Object.values(entry as Record<string, unknown>)[0];
  if (typeof link !== 'string' || link.trim() === '') return { problem: 'badConfig' };
  const kind = chatLinkKind(link);
  return kind === 'web' || kind === 'app' ? { link, kind } : { problem: 'badConfig' };
}

/** Fills the key and the server address into the chat link (lib/chat-links.ts). */
export const buildChatLink = resolveChatLink;

export const serverAddressOf = (status: PlatformStatus | null): string =>
  (status?.server_address || window.location.origin).replace(/\/+$/, '');
