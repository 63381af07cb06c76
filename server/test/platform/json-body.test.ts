import { describe, expect, it } from 'vitest';
import { JsonBodyError, parseJsonBody } from '../../src/lib/json-body.js';

/** Long enough (over 1 KiB) to take the path that skips secure-json-parse's scans when nothing could match. */
const filler = 'lorem ipsum dolor sit amet, '.repeat(80);
const body = (extra: string) => `{"model":"m","messages":[{"role":"user","content":"${filler}"}]${extra}}`;
const refused = (text: string) => {
  try {
    parseJsonBody(text, 64);
    return null;
  } catch (error) {
    return error instanceof JsonBodyError ? error.reason : 'other';
  }
};

describe('parseJsonBody', () => {
  it('parses long and short bodies to the same value JSON.parse gives', () => {
    expect(parseJsonBody(body(''), 64)).toEqual(JSON.parse(body('')));
    expect(parseJsonBody('{"a":[1,{"b":"proto constructor"}]}', 64)).toEqual({ a: [1, { b: 'proto constructor' }] });
    // The words as values, not keys, are no poisoning.
    expect(parseJsonBody(body(',"note":"__proto__ constructor"'), 64)).toMatchObject({ note: '__proto__ constructor' });
  });

  it('refuses prototype poisoning in long and short bodies, escaped or not', () => {
    for (const poison of [
      ',"__proto__":{"x":1}',
      ',"\\u005f\\u005fproto__":{"x":1}',
      ',"__pr\\u006fto__":{"x":1}',
      ',"constructor":{"prototype":{"x":1}}',
      ',"\\u0063onstructor":{"prototype":{"x":1}}',
    ]) {
      expect(refused(body(poison)), poison).toBe('invalid_request');
      expect(refused(`{"m":1${poison}}`), `short ${poison}`).toBe('invalid_request');
    }
    // Escapes elsewhere in the text take the checked path and still parse.
    expect(parseJsonBody(body(',"note":"caf\\u00e9"'), 64)).toMatchObject({ note: 'café' });
  });

  it('reads a body that starts with a byte order mark, and refuses empty, malformed and too deep ones', () => {
    expect(parseJsonBody(`\ufeff${body('')}`, 64)).toEqual(JSON.parse(body('')));
    expect(refused('')).toBe('invalid_request');
    expect(refused(body('').slice(0, -1))).toBe('invalid_request');
    expect(refused(`${'['.repeat(70)}${']'.repeat(70)}`)).toBe('json_too_deep');
    expect(refused(body(`,"deep":${'['.repeat(70)}${filler.length}${']'.repeat(70)}`))).toBe('json_too_deep');
  });
});
