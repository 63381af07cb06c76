import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/db/index.js';
import { like } from '../../src/db/like.js';
import { createTestStorage, storageKinds } from '../helpers/test-storage.js';

/**
 * Caller text in a LIKE filter (db/like.ts) is matched literally on every database of the matrix:
 * `%`, `_` and the escape character `!` match only themselves, as prefix and anywhere. Every search
 * and the OAuth username picker filter through it.
 */
describe.each(storageKinds())('literal LIKE on %s', (kind) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  const names = ['a_b', 'axb', 'a%b', 'aXXb', 'a!b', 'a!!b', '__x', 'abx', '100%', '1000', 'x_y_z', 'x1y1z'];

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(kind));
    await storage.db
      .insertInto('users')
      .values(names.map((username) => ({ username, password: 'x' })))
      .execute();
  });
  afterAll(async () => cleanup?.());

  const found = async (text: string, match: 'starts' | 'contains') =>
    (
      await storage.db
        .selectFrom('users')
        .select('username')
        .where(like('username', text, match))
        .execute()
    )
      .map((row) => row.username)
      .sort();

  it.each([
    ['a_b', 'starts', ['a_b']],
    ['a%', 'starts', ['a%b']],
    ['__', 'starts', ['__x']],
    ['_', 'starts', ['__x']],
    ['100%', 'starts', ['100%']],
    ['a!', 'starts', ['a!!b', 'a!b']],
    ['a!!', 'starts', ['a!!b']],
    ['_y_', 'contains', ['x_y_z']],
    ['%', 'contains', ['100%', 'a%b']],
    ['!', 'contains', ['a!!b', 'a!b']],
    ['', 'contains', [...names].sort()],
    ['b', 'contains', ['a!!b', 'a!b', 'a%b', 'aXXb', 'a_b', 'abx', 'axb'].sort()],
  ] as const)('%s as %s', async (text, match, expected) => {
    expect(await found(text, match)).toEqual(expected);
  });
});
