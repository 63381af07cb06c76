import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { OptionKey } from '../options/registry.js';
import type { OptionStore } from '../options/store.js';

/** Options whose values name sites the console frames or loads scripts from. */
const watchedOptions: readonly OptionKey[] = ['Chats', 'HomePageContent', 'About', 'TurnstileCheckEnabled', 'TelegramOAuthEnabled'];
const turnstileOrigin = 'https://challenges.cloudflare.com';

/** The http(s) origin of a link (chat links carry {key}/{address} placeholders), or null. */
function originOf(link: string): string | null {
  const text = link.trim().replace(/\{[a-z_]+\}/gi, 'x');
  if (!/^https?:\/\//i.test(text) || /\s/.test(text)) return null;
  try {
    const origin = new URL(text).origin;
    // An origin is put into a header: only the characters an origin can have.
    return /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin) ? origin : null;
  } catch {
    return null;
  }
}

/** Origins of the Chats links (a JSON array of {name: link} objects) and of URL-valued pages. */
export function framedOrigins(options: Pick<OptionStore, 'get' | 'json'>): string[] {
  const links: string[] = [];
  let chats: unknown = [];
  try {
    chats = options.json<unknown>('Chats');
  } catch {
    chats = [];
  }
  for (const entry of Array.isArray(chats) ? chats : []) {
    if (typeof entry === 'object' && entry !== null) {
      for (const value of Object.values(entry)) if (typeof value === 'string') links.push(value);
    }
  }
  links.push(options.get('HomePageContent'), options.get('About'));
  return [...new Set(links.map(originOf).filter((origin): origin is string => origin !== null))];
}

/**
 * The console's content security policy: scripts from the gateway only (plus the Turnstile and
 * Telegram widgets when enabled), inline styles (antd's CSS-in-JS), no framing by other sites,
 * and frames of the configured chat links and URL pages.
 */
export function contentSecurityPolicy(options: Pick<OptionStore, 'get' | 'json' | 'bool'>): string {
  const scripts = ["'self'"];
  const frames = ["'self'", ...framedOrigins(options)];
  if (options.bool('TurnstileCheckEnabled')) {
    scripts.push(turnstileOrigin);
    frames.push(turnstileOrigin);
  }
  if (options.bool('TelegramOAuthEnabled')) {
    scripts.push('https://telegram.org');
    frames.push('https://oauth.telegram.org');
  }
  return [
    "default-src 'self'",
    "base-uri 'self'",
    "object-src 'none'",
    "frame-ancestors 'self'",
    `script-src ${scripts.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    'img-src * data: blob:',
    "font-src 'self' data:",
    // The version check (and the bot-check widgets) reach other https sites; never plain http: the
    // OIDC "fetch configuration" goes through the server (POST /api/oauth/oidc/discovery) instead.
    "connect-src 'self' https:",
    `frame-src ${[...new Set(frames)].join(' ')}`,
    "worker-src 'self' blob:",
  ].join('; ');
}

export interface SecurityHeaders {
  /** Sets the headers on a reply (console pages, assets, the console's 404s). */
  apply(reply: FastifyReply): void;
  /** The same as an onRequest hook, for the /api scope. */
  onRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
}

/**
 * Security headers of the console and the management API, computed once and again when an option
 * they depend on changes (on any instance: options reload on the change message), so a request
 * only copies a ready object. The relay (/v1, /pg) does not get them: its answers are JSON for API
 * clients and its hot path stays as it is.
 */
export function createSecurityHeaders(options: OptionStore): SecurityHeaders {
  const build = () => ({
    'content-security-policy': contentSecurityPolicy(options),
    'x-frame-options': 'SAMEORIGIN',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-resource-policy': 'same-origin',
    'x-permitted-cross-domain-policies': 'none',
  });
  let headers = build();
  options.onChange((keys) => {
    if (keys.some((key) => watchedOptions.includes(key))) headers = build();
  });
  const apply = (reply: FastifyReply) => {
    reply.headers(headers);
  };
  return {
    apply,
    onRequest(_request, reply, done) {
      apply(reply);
      done();
    },
  };
}
