import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/db/index.js';
import type { NewLog } from '../../src/db/schema.js';
import type { CachedToken, CachedUser } from '../../src/relay/pipeline/access-cache.js';
import { UsageWriter, type SetAsideLog } from '../../src/relay/ledger/usage-writer.js';
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
    const now = Math.floor(Date.now() / 1000);
    await storage.db
      .insertInto('users')
      .values({ username: 'slices', password: 'x', quota: 100_000_000, created_time: now } as never)
      .execute();
    userId = (await storage.db.selectFrom('users').select('id').where('username', '=', 'slices').executeTakeFirstOrThrow()).id;
    await storage.db
      .insertInto('tokens')
      .values({ user_id: userId, key: 'sliceskey', name: 't', remain_quota: 50_000_000, created_time: now } as never)
      .execute();
    tokenId = (await storage.db.selectFrom('tokens').select('id').where('key', '=', 'sliceskey').executeTakeFirstOrThrow()).id;
    await storage.db
      .insertInto('channels')
      .values({ type: 1, key: 'k', name: 'c', models: 'm', created_time: now } as never)
      .execute();
    channelId = (await storage.db.selectFrom('channels').select('id').executeTakeFirstOrThrow()).id;
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
    const after = await ledger();
    expect(after.rows - before.rows).toBe(3000);
    expect(after.sum - before.sum).toBe(billed);
    expect([after.userUsed - before.userUsed, after.tokenUsed - before.tokenUsed, after.channelUsed - before.channelUsed]).toEqual([
      billed,
      billed,
      billed,
    ]);
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
    const after = await ledger();
    expect(after.rows - before.rows).toBe(1199);
    expect(after.sum - before.sum).toBe(written);
    expect([after.userUsed - before.userUsed, after.tokenUsed - before.tokenUsed, after.channelUsed - before.channelUsed]).toEqual([
      written,
      written,
      written,
    ]);
    const stored = await storage.db.selectFrom('users').select('remark').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(stored.remark).toBe('written meanwhile');
  });
});
