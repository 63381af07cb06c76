import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRelayPath } from '../lib/relay-paths.js';

/**
 * CORS for the relay, as new-api answers it: the API families clients call from the browser (`/v1`,
 * `/v1beta`, `/dashboard`, `/mj` and its mode prefixes, `/suno`, `/pg`) allow any origin, and so do the
 * two lookups a key makes of itself (`/api/usage/token`, `/api/log/token`: balance widgets of browser
 * chat apps call them). The rest of the management API `/api` and the console stay same-origin (no
 * CORS headers at all). Credentials are never allowed, so a cross-origin page cannot ride the console's
 * session cookie (`/pg` needs it: it stays usable only from the console's own origin in practice).
 */

/** What browser clients of the relay send: the official SDKs (x-stainless-*), Anthropic, Gemini and Midjourney clients. */
const defaultAllowedHeaders = [
  'authorization',
  'content-type',
  'accept',
  'cache-control',
  'x-api-key',
  'anthropic-version',
  'anthropic-beta',
  'anthropic-dangerous-direct-browser-access',
  'x-goog-api-key',
  'x-goog-api-client',
  'openai-organization',
  'openai-project',
  'openai-beta',
  'mj-api-secret',
  'new-api-user',
  'x-request-id',
  'x-stainless-arch',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
  'x-stainless-helper-method',
  'x-stainless-poll-helper',
].join(', ');
/** Headers a browser client may read from an answer (X-ModelGate-Cache: the response cache, docs/caching.md). */
const exposedHeaders = 'X-Request-Id, Retry-After, Retry-After-Ms, X-ModelGate-Cache';
/** A header-name list as a preflight asks for it (tokens separated by commas), echoed only when well formed. */
const headerList = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:[ \t]*,[ \t]*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

/** The /api routes a key authenticates by itself (api/token-usage/routes.ts), with or without a trailing slash or a query. */
const keyLookupPaths = /^\/api\/(?:usage|log)\/token\/?(?:\?|$)/;

/** Every relay path family (lib/relay-paths.ts) and the key's own lookups answer CORS. */
export const isCorsPath = (url: string): boolean => isRelayPath(url) || keyLookupPaths.test(url);

/**
 * Adds the CORS headers to a relay answer (whatever writes it later: the direct lane or Fastify,
 * Node merges them into the head) and answers a preflight itself: 204, no token needed, nothing else
 * runs. Returns whether the request was answered.
 */
export function applyCors(request: IncomingMessage, response: ServerResponse): boolean {
  // Only a browser's cross-origin call carries Origin: SDK and server traffic gets no CORS headers.
  if (request.headers.origin === undefined) return false;
  const url = request.url ?? '';
  if (url.charCodeAt(0) !== 47 /* / */ || !isCorsPath(url)) return false;
  response.setHeader('Access-Control-Allow-Origin', '*');
  if (request.method !== 'OPTIONS') {
    response.setHeader('Access-Control-Expose-Headers', exposedHeaders);
    return false;
  }
  const requested = request.headers['access-control-request-headers'];
  const allowed =
    typeof requested === 'string' && requested.length <= 2000 && headerList.test(requested.trim())
      ? requested.trim()
      : defaultAllowedHeaders;
  response.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': allowed,
    'Access-Control-Max-Age': '86400',
    Vary: 'Access-Control-Request-Headers',
  });
  response.end();
  return true;
}
