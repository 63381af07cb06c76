/**
 * Values a hostile client puts where a field belongs, and the bodies made by putting each of them in
 * each field of a well-formed body, one at a time, down to a few levels of nesting.
 */
import type { Json } from '@modelgate/shared';

export const hostileValues: readonly unknown[] = [
  '',
  'x'.repeat(5000),
  '\u0000',
  '\uD800',
  -1,
  0,
  1e308,
  2 ** 53 + 2,
  3.5,
  true,
  false,
  null,
  [],
  [1, 'a'],
  [{}],
  [null],
  {},
  { a: { b: [] } },
  'NaN',
  '__proto__',
  { type: 'x' },
  [{ type: 'image_url', image_url: { url: 'data:image/png;base64,!!' } }],
];

export function mutatedBodies(base: Json, maxDepth = 4): Json[] {
  const out: Json[] = [];
  const walk = (node: unknown, path: Array<string | number>) => {
    if (path.length > maxDepth || !node || typeof node !== 'object') return;
    for (const key of Object.keys(node)) {
      for (const value of hostileValues) {
        const copy = structuredClone(base);
        let at: any = copy;
        for (const step of path) at = at[step];
        at[key] = value;
        out.push(copy);
      }
      walk((node as Json)[key], [...path, key]);
    }
  };
  walk(base, []);
  return out;
}
