import { chatLinkKind, tokenKeyPrefix } from '@modelgate/shared';

/** Base64 of a text's UTF-8 bytes (btoa alone takes Latin-1 only). */
function base64Of(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The key as clients send it: with the sk- prefix. */
export const withKeyPrefix = (key: string): string => (key.startsWith(tokenKeyPrefix) ? key : `${tokenKeyPrefix}${key}`);

/**
 * A Chats link filled in for one key, as new-api fills it: {cherryConfig} and {aionuiConfig} become the
 * base64 JSON Cherry Studio and AionUI import (URL-encoded), {address} the server address (URL-encoded,
 * no trailing slash) and {key} the key with sk-; every occurrence.
 */
export function resolveChatLink(link: string, key: string, address: string): string {
  const apiKey = withKeyPrefix(key);
  const baseUrl = address.replace(/\/+$/, '');
  const imported = (config: Record<string, string>) => encodeURIComponent(base64Of(JSON.stringify(config)));
  return (
    link
      // The apps know gateways of this family as the provider "new-api"; the address says which one.
      .replaceAll('{cherryConfig}', () => imported({ id: 'new-api', baseUrl, apiKey }))
      .replaceAll('{aionuiConfig}', () => imported({ platform: 'new-api', baseUrl, apiKey }))
      .replaceAll('{address}', encodeURIComponent(baseUrl))
      .replaceAll('{key}', apiKey)
  );
}

/** Whether the console opens a link: an http(s) page or an app's own scheme. */
export const isOpenableChatLink = (link: string): boolean => {
  const kind = chatLinkKind(link);
  return kind === 'web' || kind === 'app';
};
