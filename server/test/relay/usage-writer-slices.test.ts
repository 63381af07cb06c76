import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/db/index.js';
import type { NewLog } from '../../src/db/schema.js';
import type { CachedToken, CachedUser } from '../../src/relay/pipeline/access-cache.js';
import { UsageWriter, type SetAsideLog } from '../../src/relay/ledger/usage-writer.js';
import { createLedgerOwner } from '../helpers/ledger-owner.js';
import { createTestStorage, storageKinds } from '../helpers/test-storage.js';

/**
 * A large flush lets the event loop turn while it writes (on SQLite the rows go in slices between
 * turns; the other dialects wait on the network), so calls in flight are not held up for the whole
 * insert. It stays one transaction: a row refused in its last slice rolls all of it back before the
 * rows are written one by one, and a query made during the flush is never part of it.
 */
describe.each(storageKinds())('usage writer flush in slices on %s', (kind) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let userId: number;
  let tokenId: number;
  let channelId: number;

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(kind));
    ({ userId, tokenId, channelId } = await createLedgerOwner(storage, 'slices', 100_000_000, 50_000_000));
  });
  afterAll(async () => cleanup());

  const row = (i: number, overrides: Partial<NewLog> = {}): NewLog => ({
    user_id: userId,
    created_at: 1_700_000_000 + i,
    type: 2,
    content: '',
    username: 'slices',
    token_name: 't',
    model_name: 'gpt-4o-mini',
    quota: 1 + (i % 13),
    prompt_tokens: 12,
    completion_tokens: i,
    use_time: 0,
    is_stream: i % 2,
    channel_id: channelId,
    token_id: tokenId,
    group: 'default',
    ip: '127.0.0.1',
    other: '{"frt":-1}',
    ...overrides,
  });

  async function ledger(): Promise<{ rows: number; sum: number; userUsed: number; tokenUsed: number; channelUsed: number }> {
    const logs = await storage.db.selectFrom('logs').select(['quota']).where('user_id', '=', userId).execute();
    const user = await storage.db.selectFrom('users').select('used_quota').where('id', '=', userId).executeTakeFirstOrThrow();
    const token = await storage.db.selectFrom('tokens').select('used_quota').where('id', '=', tokenId).executeTakeFirstOrThrow();
    const channel = await storage.db.selectFrom('channels').select('used_quota').where('id', '=', channelId).executeTakeFirstOrThrow();
    return {
      rows: logs.length,
      sum: logs.reduce((total, log) => total + Number(log.quota), 0),
      userUsed: Number(user.used_quota),
      tokenUsed: Number(token.used_quota),
      channelUsed: Number(channel.used_quota),
    };
  }

  type Ledger = Awaited<ReturnType<typeof ledger>>;

  /** Since `before`: `rows` more log rows summing to `quota`, and the user's, token's and channel's counters up by as much. */
  async function expectLedgerMoved(before: Ledger, rows: number, quota: number): Promise<void> {
    const after = await ledger();
    expect(after.rows - before.rows).toBe(rows);
    expect([after.sum, after.userUsed, after.tokenUsed, after.channelUsed]).toEqual([
      before.sum + quota,
      before.userUsed + quota,
      before.tokenUsed + quota,
      before.channelUsed + quota,
    ]);
  }

  /** Counts the event loop's turns (a chain of setImmediate) until `until` settles. */
  async function turnsDuring(until: Promise<unknown>, onTurn: (turn: number) => void = () => undefined): Promise<number> {
    let turns = 0;
    let isDone = false;
    const settled = until.finally(() => {
      isDone = true;
    });
    const turn = (): void => {
      if (isDone) return;
      turns += 1;
      onTurn(turns);
      setImmediate(turn);
    };
    setImmediate(turn);
    await settled;
    return turns;
  }

  const newUser = (): CachedUser =>
    ({ id: userId, quota: 100_000_000, usedQuota: 0, pendingQuota: 0, pendingCount: 0, held: 0 }) as CachedUser;
  const newToken = (): CachedToken =>
    ({ id: tokenId, isUnlimited: false, remainQuota: 50_000_000, usedQuota: 0, pendingQuota: 0, held: 0 }) as CachedToken;

  it('lets the event loop turn while it writes 3,000 rows, and writes them and the counters exactly', async () => {
    const before = await ledger();
    const writer = new UsageWriter(storage, () => undefined);
    const [user, token] = [newUser(), newToken()];
    let billed = 0;
    for (let i = 0; i < 3000; i += 1) {
      const log = row(i);
      billed += log.quota!;
      writer.record(user, token, channelId, log.quota!, log);
    }
    const turns = await turnsDuring(writer.flush());
    // SQLite: six slices of 500 rows, a turn between each two.
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(writer.pendingLogCount).toBe(0);
    await expectLedgerMoved(before, 3000, billed);
  });

  it('rolls all slices back for a row refused in the last one; a write made meanwhile is kept', async () => {
    const before = await ledger();
    const aside: SetAsideLog[] = [];
    const writer = new UsageWriter(
      storage,
      () => undefined,
      (_error, log) => aside.push(log),
    );
    const [user, token] = [newUser(), newToken()];
    const poisonAt = 1150;
    let written = 0;
    for (let i = 0; i < 1200; i += 1) {
      const log = i === poisonAt ? row(i, { prompt_tokens: Number.NaN }) : row(i);
      if (i !== poisonAt) written += log.quota!;
      writer.record(user, token, channelId, log.quota!, log);
    }
    // A management write while the flush is under way: it waits for its own connection, never joins the flush.
    let meanwhile: Promise<unknown> | null = null;
    await turnsDuring(writer.flush(), (turn) => {
      if (turn === 1) meanwhile = storage.db.updateTable('users').set({ remark: 'written meanwhile' }).where('id', '=', userId).execute();
    });
    await meanwhile;
    expect(aside.map((log) => log.quota)).toEqual([row(poisonAt).quota]);
    await expectLedgerMoved(before, 1199, written);
    const stored = await storage.db.selectFrom('users').select('remark').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(stored.remark).toBe('written meanwhile');
  });
});
