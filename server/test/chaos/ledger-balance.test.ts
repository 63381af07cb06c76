import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { insertReturningId, type Storage } from '../../src/db/index.js';
import { checkLedger, type LedgerExpectation } from '../helpers/ledger-balance.js';
import { createTestStorage } from '../helpers/test-storage.js';

/** The chaos suite's ledger checker must see every kind of imbalance it claims to check. */
describe('ledger-balance checker', () => {
  let cleanup: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await cleanup?.();
    cleanup = null;
  });

  async function balancedLedger(): Promise<{
    storage: Storage;
    expectation: LedgerExpectation;
    ids: { user: number; token: number; channel: number };
  }> {
    const created = await createTestStorage('sqlite');
    cleanup = created.cleanup;
    const { storage } = created;
    const now = Math.floor(Date.now() / 1000);
    // 1,000 initial quota; two requests billed 30 and 70 through one limited token (remain 500) and one channel.
    const user = await insertReturningId(storage, 'users', {
      username: 'u',
      password: 'x',
      quota: 900,
      used_quota: 100,
      request_count: 2,
      created_time: now,
    });
    const token = await insertReturningId(storage, 'tokens', {
      user_id: user,
      key: 'k'.repeat(48),
      name: 't',
      remain_quota: 400,
      used_quota: 100,
      unlimited_quota: 0,
      created_time: now,
    });
    const channel = await insertReturningId(storage, 'channels', {
      type: 1,
      name: 'c',
      key: 'x',
      models: 'm',
      used_quota: 100,
      created_time: now,
    });
    for (const quota of [30, 70]) {
      await storage.db
        .insertInto('logs')
        .values({
          user_id: user,
          token_id: token,
          channel_id: channel,
          type: 2,
          quota,
          prompt_tokens: 10,
          completion_tokens: 5,
          created_at: now,
        })
        .execute();
    }
    return {
      storage,
      ids: { user, token, channel },
      expectation: { users: [{ id: user, initialQuota: 1000 }], tokens: [{ id: token, initialRemain: 500 }] },
    };
  }

  it('finds nothing wrong with a balanced ledger and reports its sums', async () => {
    const { storage, expectation, ids } = await balancedLedger();
    const report = await checkLedger(storage.db, expectation);
    expect(report.violations).toEqual([]);
    expect(report).toMatchObject({ logCount: 2, logQuota: 100 });
    expect(report.logsByToken.get(ids.token)).toBe(2);
  });

  it.each([
    [
      'a lost log row',
      (db: Storage['db']) => db.deleteFrom('logs').where('quota', '=', 30).execute(),
      /user \d+: used_quota 100 but the consume logs sum to 70/,
    ],
    [
      'a user counter off by one',
      (db: Storage['db']) =>
        db
          .updateTable('users')
          .set({ quota: sql`quota - 1` })
          .execute(),
      /quota 899 \+ used_quota 100 = 999, not the initial 1000/,
    ],
    [
      'a request_count without its log',
      (db: Storage['db']) => db.updateTable('users').set({ request_count: 3 }).execute(),
      /request_count 3 but 2 consume logs/,
    ],
    [
      'a token counter drifting',
      (db: Storage['db']) => db.updateTable('tokens').set({ remain_quota: 401 }).execute(),
      /remain_quota 401 \+ used_quota 100 = 501, not the initial 500/,
    ],
    [
      'a channel counter drifting',
      (db: Storage['db']) => db.updateTable('channels').set({ used_quota: 99 }).execute(),
      /channel \d+: used_quota 99 but its consume logs sum to 100/,
    ],
    [
      'a fractional log quota',
      (db: Storage['db']) => db.updateTable('logs').set({ prompt_tokens: 13.5 }).where('quota', '=', 30).execute(),
      /prompt_tokens 13\.5 is not an integer/,
    ],
    [
      'a negative log count',
      (db: Storage['db']) => db.updateTable('logs').set({ completion_tokens: -7 }).where('quota', '=', 30).execute(),
      /completion_tokens -7 is not an integer/,
    ],
  ])('reports %s', async (_name, corrupt, message) => {
    const { storage, expectation } = await balancedLedger();
    await corrupt(storage.db);
    const report = await checkLedger(storage.db, expectation);
    expect(report.violations.join('\n')).toMatch(message);
  });
});
