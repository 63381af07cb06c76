/**
 * Every path family the relay serves (docs/relay.md "Endpoints"): the OpenAI routes (`/v1`), Gemini's
 * (`/v1beta`), the playground (`/pg`), the dashboard billing routes, Midjourney with its mode prefixes,
 * and Suno. The one list that the access log, the error handler (caller-shaped errors instead of the
 * management envelope), the console's 404s and CORS read.
 */
export const relayPrefixes = ['/v1', '/v1beta', '/pg', '/dashboard', '/mj', '/mj-fast', '/mj-turbo', '/mj-relax', '/suno'] as const;

const prefixes = new Set<string>(relayPrefixes);

/** Whether a request URL (path, optionally with a query) belongs to the relay: a prefix itself or a path under it. */
export function isRelayPath(url: string): boolean {
  let end = url.length;
  let isEscaped = false;
  for (let at = 1; at < url.length; at += 1) {
    const char = url.charCodeAt(at);
    // '/' ends the first segment, '?' the path.
    if (char === 47 || char === 63) {
      end = at;
      break;
    }
    if (char === 37) isEscaped = true;
  }
  // `/%761/...` is routed as `/v1/...`: judged as the router sees it.
  return prefixes.has(isEscaped ? canonicalPath(url.slice(0, end)) : url.slice(0, end));
}

/** RFC 3986 unreserved characters: ALPHA, DIGIT, '-', '.', '_', '~'. */
const isUnreserved = (code: number): boolean =>
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x30 && code <= 0x39) ||
  code === 0x2d ||
  code === 0x2e ||
  code === 0x5f ||
  code === 0x7e;

/**
 * The path of a request URL as one route has it, whatever the client encoded: the query cut off, an
 * escaped unreserved character decoded (`%63` is `c`, RFC 3986 §6.2.2.2: the router matches
 * `/v1/chat/%63ompletions` to `/v1/chat/completions`) and other escapes in upper case. Logs and the
 * metrics' route label read it, so a caller cannot make one route into many.
 */
export function canonicalPath(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape: string, hex: string) => {
    const code = Number.parseInt(hex, 16);
    return isUnreserved(code) ? String.fromCharCode(code) : escape.toUpperCase();
  });
}
