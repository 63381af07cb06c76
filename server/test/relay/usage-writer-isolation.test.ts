import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId, type Storage } from '../../src/db/index.js';
import type { NewLog } from '../../src/db/schema.js';
import type { CachedToken, CachedUser } from '../../src/relay/pipeline/access-cache.js';
import { UsageWriter, type SetAsideLog } from '../../src/relay/ledger/usage-writer.js';
import { FundingHoldStore } from '../../src/subscriptions/funding-holds.js';
import { takeFunding } from '../../src/subscriptions/funding.js';
import { createLedgerOwner } from '../helpers/ledger-owner.js';
import { createTestStorage, storageKinds } from '../helpers/test-storage.js';

/**
 * The write-behind flush with a poisoned row in the batch: the database refuses it (NaN in an
 * integer column fails on every dialect), so the batch falls back to one savepoint per row; the
 * poisoned row is set aside and reported, every other row is written, and the counters equal the
 * sum of the rows written. Text the databases would refuse (NUL bytes, lone surrogates, names over
 * the column width) is made storable instead of failing the row.
 */
describe.each(storageKinds())('usage writer with a poisoned row on %s', (kind) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let userId: number;
  let tokenId: number;
  let channelId: number;

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(kind));
    ({ userId, tokenId, channelId } = await createLedgerOwner(storage, 'poison', 1_000_000, 500_000));
  });
  afterAll(async () => cleanup());

  const row = (i: number, overrides: Partial<NewLog> = {}): NewLog => ({
    user_id: userId,
    created_at: 1_700_000_000 + i,
    type: 2,
    content: `c${i}`,
    username: 'poison',
    token_name: 't',
    model_name: `m${i}`,
    quota: 10 + i,
    prompt_tokens: i,
    completion_tokens: i,
    use_time: 0,
    is_stream: 0,
    channel_id: channelId,
    token_id: tokenId,
    group: 'default',
    ip: '',
    other: '{}',
    ...overrides,
  });

  it('sets the refused row aside, writes the other 149 and keeps the counters equal to the log sum', async () => {
    const aside: SetAsideLog[] = [];
    const errors: unknown[] = [];
    const writer = new UsageWriter(
      storage,
      (error) => errors.push(error),
      (_error, log) => aside.push(log),
    );
    const user = { id: userId, quota: 1_000_000, usedQuota: 0, pendingQuota: 0, pendingCount: 0, held: 0 } as CachedUser;
    const token = { id: tokenId, isUnlimited: false, remainQuota: 500_000, usedQuota: 0, pendingQuota: 0, held: 0 } as CachedToken;
    const poisonAt = 73;
    for (let i = 0; i < 150; i += 1) {
      let log: NewLog = row(i);
      if (i === poisonAt) log = row(i, { prompt_tokens: Number.NaN });
      if (i === 5) log = row(i, { model_name: 'gpt\u0000-4o\uD800', content: 'a\u0000b', other: '{"x":"\uDC00"}' });
      if (i === 6) log = row(i, { model_name: 'm'.repeat(300), username: '用'.repeat(100), group: 'g\u0000' });
      writer.record(user, token, channelId, 10 + i, log);
    }
    await writer.flush();
    expect(errors).toEqual([]);
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatchObject({ userId, tokenId, channelId, quota: 10 + poisonAt });
    expect(writer.setAsideCount).toBe(1);
    expect(writer.pendingLogCount).toBe(0);

    const logs = await storage.db.selectFrom('logs').selectAll().orderBy('id').execute();
    expect(logs).toHaveLength(149);
    expect(logs.some((log) => Number(log.created_at) === 1_700_000_000 + poisonAt)).toBe(false);
    const cleaned = logs.find((log) => Number(log.created_at) === 1_700_000_005)!;
    expect([cleaned.model_name, cleaned.content, cleaned.other]).toEqual(['gpt-4o\uFFFD', 'ab', '{"x":"\uFFFD"}']);
    const cut = logs.find((log) => Number(log.created_at) === 1_700_000_006)!;
    expect([cut.model_name, cut.username, cut.group]).toEqual(['m'.repeat(191), '用'.repeat(64), 'g']);

    const sum = logs.reduce((total, log) => total + Number(log.quota), 0);
    expect(sum).toBe(150 * 10 + (149 * 150) / 2 - (10 + poisonAt));
    const userRow = await storage.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
    expect([Number(userRow.quota), Number(userRow.used_quota)]).toEqual([1_000_000 - sum, sum]);
    const tokenRow = await storage.db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    expect([Number(tokenRow.remain_quota), Number(tokenRow.used_quota)]).toEqual([500_000 - sum, sum]);
    const channelRow = await storage.db.selectFrom('channels').select('used_quota').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(Number(channelRow.used_quota)).toBe(sum);
    expect([user.pendingQuota, user.quota, user.usedQuota, token.pendingQuota, token.remainQuota]).toEqual([
      0,
      1_000_000 - sum,
      sum,
      0,
      500_000 - sum,
    ]);

    // Later flushes are not held back by it.
    writer.record(user, token, channelId, 7, row(1000, { quota: 7 }));
    await writer.flush();
    expect(await storage.db.selectFrom('logs').select('id').execute()).toHaveLength(150);
    const after = await storage.db.selectFrom('users').select('used_quota').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(Number(after.used_quota)).toBe(sum + 7);
  });

  it('a refused row bills nothing: its subscription share goes back; a written row drops its held share', async () => {
    const now = Math.floor(Date.now() / 1000);
    const sub = await insertReturningId(storage, 'user_subscriptions', {
      user_id: userId,
      plan_id: 1,
      plan_name: 'Pro',
      source: 'admin',
      status: 'active',
      period_quota: 1000,
      remaining_quota: 1000,
      period_start: now - 60,
      period_end: now + 86_400,
      ends_at: now + 86_400,
    });
    const remaining = async () =>
      Number(
        (await storage.db.selectFrom('user_subscriptions').select('remaining_quota').where('id', '=', sub).executeTakeFirstOrThrow())
          .remaining_quota,
      );
    const store = new FundingHoldStore(storage, `isolation-${kind}`);
    const billed = (amount: number) =>
      store.change(userId, null, async (trx) => {
        const taken = await takeFunding(trx, { userId, model: 'm', group: 'default', amount, preference: 'subscription_first' });
        return { parts: taken.parts, result: taken };
      });
    const written = await billed(30);
    const refused = await billed(40);
    expect(await remaining()).toBe(930);
    const writer = new UsageWriter(storage, () => undefined);
    const user = { id: userId, quota: 1_000_000, usedQuota: 0, pendingQuota: 0, pendingCount: 0, held: 0 } as CachedUser;
    const paid = (quota: number) => JSON.stringify({ billing_source: 'subscription', subscription_quota: quota, wallet_quota: 0 });
    writer.record(user, null, channelId, 30, row(2000, { quota: 30, other: paid(30) }), 0, written.nextId);
    writer.record(user, null, channelId, 40, row(2001, { quota: 40, other: paid(40), prompt_tokens: Number.NaN }), 0, refused.nextId);
    await writer.flush();
    expect(writer.setAsideCount).toBe(1);
    expect(await remaining()).toBe(970);
    expect(await storage.db.selectFrom('funding_holds').select('id').execute()).toEqual([]);
  });
});
