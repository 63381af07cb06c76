import { afterAll, describe, expect, it } from 'vitest';
import { insertReturningId, migrate, nowSeconds } from '../../src/db/index.js';
import { createTestStorage, storageKinds } from '../helpers/test-storage.js';

describe.each(storageKinds())('storage on %s', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('creates every table, migrates idempotently and round-trips typed rows', async () => {
    const { storage, cleanup } = await createTestStorage(kind);
    cleanups.push(cleanup);
    await migrate(storage);
    await migrate(storage);
    const tables = [
      'users',
      'options',
      'setups',
      'tokens',
      'channels',
      'abilities',
      'redemptions',
      'logs',
      'top_ups',
      'quota_data',
      'midjourneys',
      'tasks',
      'two_fas',
      'two_fa_backup_codes',
      'passkey_credentials',
      'funding_holds',
      'relay_instances',
    ] as const;
    for (const table of tables) {
      const rows = await storage.db.selectFrom(table).selectAll().execute();
      expect(rows).toEqual([]);
    }
    const id = await insertReturningId(storage, 'users', { username: 'alice', password: 'x', display_name: '爱丽丝 🚀' });
    expect(id).toBeGreaterThan(0);
    const user = await storage.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(user).toMatchObject({
      username: 'alice',
      display_name: '爱丽丝 🚀',
      role: 1,
      status: 1,
      quota: 0,
      group: 'default',
      setting: '',
      deleted_at: null,
    });
    expect(typeof user.quota).toBe('number');
  });

  it('moves counters by atomic increments without losing updates under concurrency', async () => {
    const { storage, cleanup } = await createTestStorage(kind);
    cleanups.push(cleanup);
    const id = await insertReturningId(storage, 'users', { username: 'bob', password: 'x', quota: 1_000_000 });
    await Promise.all(
      Array.from({ length: 50 }, () =>
        storage.db
          .updateTable('users')
          .set((eb) => ({ quota: eb('quota', '-', 7), used_quota: eb('used_quota', '+', 7) }))
          .where('id', '=', id)
          .execute(),
      ),
    );
    const user = await storage.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(user).toEqual({ quota: 1_000_000 - 350, used_quota: 350 });
  });

  it('stores big quotas and times as numbers, and sums them as numbers', async () => {
    const { storage, cleanup } = await createTestStorage(kind);
    cleanups.push(cleanup);
    const at = nowSeconds();
    await storage.db
      .insertInto('logs')
      .values([
        { created_at: at, type: 2, quota: 9_000_000_000, other: '{}' },
        { created_at: at, type: 2, quota: 1, other: '{}' },
      ])
      .execute();
    const row = await storage.db
      .selectFrom('logs')
      .select((eb) => eb.fn.sum<number>('quota').as('total'))
      .executeTakeFirstOrThrow();
    expect(Number(row.total)).toBe(9_000_000_001);
    expect(typeof (await storage.db.selectFrom('logs').select('created_at').executeTakeFirstOrThrow()).created_at).toBe('number');
  });
});
