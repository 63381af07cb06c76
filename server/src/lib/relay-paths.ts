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
  for (let at = 1; at < url.length; at += 1) {
    const char = url.charCodeAt(at);
    // '/' ends the first segment, '?' the path.
    if (char === 47 || char === 63) {
      end = at;
      break;
    }
  }
  return prefixes.has(url.slice(0, end));
}
