import { describe, expect, it } from 'vitest';
import { parseOther } from './log-detail';

describe("a log's other JSON, read with the shared schema", () => {
  it('reads the declared fields and leaves out the ones the console does not read', () => {
    const other = parseOther(
      JSON.stringify({ model_ratio: 2.5, frt: 1200, billing_source: 'mixed', admin_info: { use_channel: [3, '4'] }, extra: 1 }),
    );
    expect(other).toEqual({ model_ratio: 2.5, frt: 1200, billing_source: 'mixed', admin_info: { use_channel: [3, '4'] } });
  });

  it('reads a field of the wrong type as absent, keeping the others', () => {
    expect(parseOther(JSON.stringify({ model_ratio: '2.5', group: 'vip', billing_source: 'gift' }))).toEqual({ group: 'vip' });
  });

  it('answers {} for empty, malformed or non-object text', () => {
    for (const text of ['', '{', '[1,2]', 'null', '"text"', '42']) expect(parseOther(text), text).toEqual({});
  });
});
