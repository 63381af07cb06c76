import { describe, expect, it } from 'vitest';
import { normalizeAddress } from '../../src/lib/server-address.js';

describe('the public address absolute URLs are built on', () => {
  it('keeps scheme, host, port and path, without a trailing slash, query, fragment or credentials', () => {
    expect(normalizeAddress(' https://Gate.Example.com/ ')).toBe('https://gate.example.com');
    expect(normalizeAddress('http://127.0.0.1:3000///')).toBe('http://127.0.0.1:3000');
    expect(normalizeAddress('https://example.com/gate/')).toBe('https://example.com/gate');
    expect(normalizeAddress('https://user:pass@example.com/gate?x=1#top')).toBe('https://example.com/gate');
    expect(normalizeAddress('https://example.com:443/')).toBe('https://example.com');
  });

  it('is null when unset or not an http(s) address', () => {
    for (const text of ['', '   ', 'example.com', 'javascript:alert(1)', 'ftp://example.com', 'https://']) {
      expect(normalizeAddress(text), text).toBeNull();
    }
  });
});
