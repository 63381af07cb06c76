import { describe, expect, it } from 'vitest';
import { canonicalPath, isRelayPath, relayPrefixes } from '../../src/lib/relay-paths.js';
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

  it('judges an escaped first segment as the router does', () => {
    expect(isRelayPath('/%761/chat/completions')).toBe(true);
    expect(isRelayPath('/%76%31beta/models')).toBe(true);
    expect(isRelayPath('/%2Fv1/chat')).toBe(false);
    expect(isRelayPath('/api%2Fv1')).toBe(false);
  });

  it('gives one path per route whatever the client escaped', () => {
    expect(canonicalPath('/v1/chat/completions?x=%63')).toBe('/v1/chat/completions');
    expect(canonicalPath('/v1/chat/%63ompletions')).toBe('/v1/chat/completions');
    expect(canonicalPath('/%76%31/chat/%43%6f%6D%70letions')).toBe('/v1/chat/Completions');
    expect(canonicalPath('/suno/submit/%6d%75%73%69%63')).toBe('/suno/submit/music');
    expect(canonicalPath('/v1beta/models/m%3agenerateContent')).toBe('/v1beta/models/m%3AgenerateContent');
    expect(canonicalPath('/v1/chat%2fcompletions%2F')).toBe('/v1/chat%2Fcompletions%2F');
    expect(canonicalPath('/a%7e%5F%2d%2E%25%zz')).toBe('/a~_-.%25%zz');
  });
});
