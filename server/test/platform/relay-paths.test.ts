import { describe, expect, it } from 'vitest';
import { isRelayPath, relayPrefixes } from '../../src/lib/relay-paths.js';
import { isCorsPath } from '../../src/relay/cors.js';
import { isRelayPath as errorHandlerRelayPath } from '../../src/api/error-handler.js';

/** One list of relay path families for the access log, the error handler and CORS (they used to disagree). */
describe('relay path families', () => {
  it('covers each family, its subpaths and queries, and nothing else', () => {
    for (const prefix of relayPrefixes) {
      expect(isRelayPath(prefix)).toBe(true);
      expect(isRelayPath(`${prefix}/anything`)).toBe(true);
      expect(isRelayPath(`${prefix}?a=1`)).toBe(true);
      expect(isRelayPath(`${prefix}x/anything`)).toBe(false);
    }
    for (const path of ['/', '/api/status', '/v2/chat', '/console', '/mjx', '/suno-x/fetch', '', '/v1beta2', '/dashboards']) {
      expect(isRelayPath(path)).toBe(false);
    }
    expect(isRelayPath('/mj-fast/mj/submit/imagine')).toBe(true);
    expect(isRelayPath('/dashboard/billing/usage?start_date=2024-01-01')).toBe(true);
  });

  it('is the same list for CORS and the error handler', () => {
    for (const path of [
      '/v1/chat/completions',
      '/dashboard/billing/subscription',
      '/mj-relax/mj/fetch',
      '/suno/fetch',
      '/pg/chat/completions',
      '/api/user/self',
      '/',
    ]) {
      expect(isCorsPath(path)).toBe(isRelayPath(path));
      expect(errorHandlerRelayPath(path)).toBe(isRelayPath(path));
    }
  });
});
