import { TokenStatus } from '@modelgate/shared';
import { http, type Page } from '../../../lib/http';
import type { PlatformStatus } from '../../../lib/status';
import { readJson, StorageKey } from '../../../lib/storage-keys';

interface TokenRow {
  key: string;
  status: number;
}

/** GET /api/token/?p=1&size=100: the first enabled token's key with the sk- prefix, or null. */
export async function findEnabledKey(): Promise<string | null> {
  const page = await http.get<Page<TokenRow>>('/api/token/', { query: { p: 1, size: 100 } });
  const token = (page.items ?? []).find((item) => item.status === TokenStatus.enabled);
  if (!token) return null;
  return token.key.startsWith('sk-') ? token.key : `sk-${token.key}`;
}

export type ChatLinkProblem = 'notConfigured' | 'badConfig';

/** The configured chat link at an index of the Chats option (status chats, else local 'chats'). */
export function chatLinkAt(status: PlatformStatus | null, index: number): { link: string } | { problem: ChatLinkProblem } {
  const chats = Array.isArray(status?.chats) ? status.chats : readJson<unknown[]>(StorageKey.chats);
  if (!Array.isArray(chats) || chats.length === 0) return { problem: 'notConfigured' };
  const entry = chats[index];
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { problem: 'badConfig' };
  const link = Object.values(entry as Record<string, unknown>)[0];
  if (typeof link !== 'string' || link.trim() === '') return { problem: 'badConfig' };
  return { link };
}

/** Substitutes {key} and {address} (every occurrence) into the chat link. */
export function buildChatLink(link: string, key: string, address: string): string {
  return link.replaceAll('{key}', key).replaceAll('{address}', address);
}

export const serverAddressOf = (status: PlatformStatus | null): string => (status?.server_address || window.location.origin).replace(/\/+$/, '');
