import type { OptionStore } from '../options/store.js';
import { forbidden } from './errors.js';

/**
 * The gateway's public address, the one base of every absolute URL it hands out: links in mail, OAuth
 * redirect URIs, payment return and notify URLs, the Midjourney image proxy. It comes from the
 * `ServerAddress` option and never from a request's Host, X-Forwarded-Host or protocol, which the
 * caller writes: a reset mail built from `Host: evil.example` hands the token to evil.example.
 */

/** An http(s) address as `scheme://host[:port][/path]`, no trailing slash, query or credentials; null when empty or not one. */
export function normalizeAddress(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The normalized `ServerAddress`, or null while it is unset: the caller then refuses or leaves the link out. */
export function serverAddressOf(options: Pick<OptionStore, 'get'>): string | null {
  return normalizeAddress(options.get('ServerAddress'));
}

/** The normalized `ServerAddress`; while it is unset, a 403 with `message` (say what cannot be done without it). */
export function requireServerAddress(options: Pick<OptionStore, 'get'>, message: string): string {
  const address = serverAddressOf(options);
  if (address === null) throw forbidden(message);
  return address;
}
