import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId, type Storage } from '../../src/db/index.js';
import { FundingHoldStore, forgetHeldShares, partsOf } from '../../src/subscriptions/funding-holds.js';
import { returnFunding, takeFunding } from '../../src/subscriptions/funding.js';
import { createTestStorages, storageKinds } from '../helpers/test-storage.js';

/**
 * Held subscription shares written down (subscriptions/funding-holds.ts): what a call took is in a
 * `funding_holds` row of its instance, changed with the allowance in one transaction, and given back
 * by a sweep once that instance stops beating. On every database of the matrix.
 */
const day = 86_400;
const now = () => Math.floor(Date.now() / 1000);

describe.each(storageKinds())('held subscription shares on %s', (kind) => {
  let storage: Storage;
  let other: Storage;
  let cleanup: () => Promise<void>;
  let userSeq = 0;

  // A second pool on the same database: another instance of the cluster.
  beforeAll(async () => {
    ({ storage, other, cleanup } = await createTestStorages(kind, 4));
  });
  afterAll(async () => cleanup?.());

  async function subscriber(allowance: number): Promise<{ userId: number; sub: number }> {
    userSeq += 1;
    const userId = await insertReturningId(storage, 'users', { username: `held${userSeq}`, password: 'x' });
    const sub = await insertReturningId(storage, 'user_subscriptions', {
      user_id: userId,
      plan_id: 1,
      plan_name: 'Pro',
      source: 'admin',
      status: 'active',
      period_quota: allowance,
      remaining_quota: allowance,
      period_start: now() - day,
      period_end: now() + day,
      ends_at: now() + day,
    });
    return { userId, sub };
  }
  const remainingOf = async (id: number) =>
    Number(
      (await storage.db.selectFrom('user_subscriptions').select('remaining_quota').where('id', '=', id).executeTakeFirstOrThrow())
        .remaining_quota,
    );
  const heldRows = async (userId: number) =>
    storage.db.selectFrom('funding_holds').select(['id', 'instance', 'parts']).where('user_id', '=', userId).orderBy('id').execute();
  const take = (store: FundingHoldStore, userId: number, amount: number, id: number | null = null) =>
    store.change(userId, id, async (trx) => {
      const taken = await takeFunding(trx, { userId, model: 'gpt-4o', group: 'default', amount, preference: 'subscription_first' });
      return { parts: taken.parts, result: taken };
    });

  it('keeps what a call took in its row, changed with the allowance, and drops it with the bill', async () => {
    const store = new FundingHoldStore(storage, `a-${kind}`);
    const { userId, sub } = await subscriber(1000);
    const held = await take(store, userId, 300);
    expect(held.wasSwept).toBe(false);
    expect(await remainingOf(sub)).toBe(700);
    expect(await heldRows(userId)).toEqual([{ id: held.nextId, instance: `a-${kind}`, parts: expect.any(String) }]);
    expect(partsOf((await heldRows(userId))[0]!.parts)).toEqual([{ subscriptionId: sub, periodEnd: expect.any(Number), amount: 300 }]);

    // Settle: 120 used, 180 back, the row keeps the bill's part until the bill is written.
    const billed = await store.change(userId, held.nextId, async (trx) => {
      const { kept } = await returnFunding(trx, held.result.parts, 180);
      return { parts: kept, result: kept };
    });
    expect(await remainingOf(sub)).toBe(880);
    expect(partsOf((await heldRows(userId))[0]!.parts)).toEqual([expect.objectContaining({ amount: 120 })]);
    await storage.db.transaction().execute((trx) => forgetHeldShares(trx, [billed.nextId!]));
    expect(await heldRows(userId)).toEqual([]);
    expect(await remainingOf(sub)).toBe(880);
  });

  it('writes nothing when the change fails: the allowance and the row stay as they were', async () => {
    const store = new FundingHoldStore(storage, `b-${kind}`);
    const { userId, sub } = await subscriber(500);
    const held = await take(store, userId, 200);
    await expect(
      store.change(userId, held.nextId, async (trx) => {
        await returnFunding(trx, held.result.parts);
        throw new Error('the bill could not be split');
      }),
    ).rejects.toThrow('the bill could not be split');
    expect(await remainingOf(sub)).toBe(300);
    expect((await heldRows(userId)).map((row) => row.id)).toEqual([held.nextId]);
    expect(await store.giveBack(userId, held.nextId, held.result.parts)).toBe(200);
    expect(await remainingOf(sub)).toBe(500);
  });

  it('a sweep gives back what a dead instance held, never what a live one or the sweeper holds', async () => {
    const dead = new FundingHoldStore(other, `dead-${kind}`);
    const live = new FundingHoldStore(other, `live-${kind}`);
    const sweeper = new FundingHoldStore(storage, `sweeper-${kind}`);
    const { userId, sub } = await subscriber(1000);
    await dead.beat(now() - 120);
    await live.beat();
    await take(dead, userId, 100);
    await take(dead, userId, 50);
    const liveHold = await take(live, userId, 200);
    const ownHold = await take(sweeper, userId, 300);
    expect(await remainingOf(sub)).toBe(350);

    expect(await sweeper.sweep({ deadAfterSeconds: 60, isAlone: false })).toEqual({ holds: 2, quota: 150 });
    expect(await remainingOf(sub)).toBe(500);
    expect((await heldRows(userId)).map((row) => row.id)).toEqual([liveHold.nextId, ownHold.nextId]);
    // The dead instance's heartbeat row went with its last hold; the live one's stays.
    const instances = (await storage.db.selectFrom('relay_instances').select('id').execute()).map((row) => row.id);
    expect(instances).toContain(`live-${kind}`);
    expect(instances).not.toContain(`dead-${kind}`);
    // A second sweep finds nothing more.
    expect(await sweeper.sweep({ deadAfterSeconds: 60, isAlone: false })).toEqual({ holds: 0, quota: 0 });

    // Alone (no shared cache, so no other instance can run): every other instance's holds go at once.
    expect(await sweeper.sweep({ deadAfterSeconds: 60, isAlone: true })).toEqual({ holds: 1, quota: 200 });
    expect(await remainingOf(sub)).toBe(700);
    await sweeper.giveBack(userId, ownHold.nextId, ownHold.result.parts);
    expect(await remainingOf(sub)).toBe(1000);
    expect(await heldRows(userId)).toEqual([]);
  });

  it('an instance taken for dead while it lives: its calls see the share gone, nothing is given back twice', async () => {
    const slow = new FundingHoldStore(other, `slow-${kind}`);
    const sweeper = new FundingHoldStore(storage, `sweeper2-${kind}`);
    const { userId, sub } = await subscriber(1000);
    const released = await take(slow, userId, 400);
    const settled = await take(slow, userId, 300);
    expect(await sweeper.sweep({ deadAfterSeconds: 60, isAlone: true })).toEqual({ holds: 2, quota: 700 });
    expect(await remainingOf(sub)).toBe(1000);
    // A failed call gives back nothing a sweep already gave back.
    expect(await slow.giveBack(userId, released.nextId, released.result.parts)).toBe(0);
    expect(await remainingOf(sub)).toBe(1000);
    // Settle learns the share is gone and funds its bill afresh.
    const bill = await slow.change(userId, settled.nextId, async (trx, wasSwept) => {
      expect(wasSwept).toBe(true);
      const again = await takeFunding(trx, { userId, model: 'gpt-4o', group: 'default', amount: 120, preference: 'subscription_first' });
      return { parts: again.parts, result: again };
    });
    expect(bill.wasSwept).toBe(true);
    expect(await remainingOf(sub)).toBe(880);
    expect((await heldRows(userId)).map((row) => row.id)).toEqual([bill.nextId]);
  });

  it('concurrent takes and give-backs on one allowance stay exact', async () => {
    const a = new FundingHoldStore(storage, `ca-${kind}`);
    // Two pools on PostgreSQL and MySQL; SQLite is one instance on one connection.
    const b = new FundingHoldStore(kind === 'sqlite' ? storage : other, `cb-${kind}`);
    const { userId, sub } = await subscriber(2000);
    const holds = await Promise.all(Array.from({ length: 40 }, (_, i) => take(i % 2 === 0 ? a : b, userId, 70)));
    const taken = holds.reduce((total, held) => total + held.result.fromSubscription, 0);
    expect(taken).toBe(2000);
    expect(await remainingOf(sub)).toBe(0);
    await Promise.all(holds.map((held, i) => (i % 2 === 0 ? a : b).giveBack(userId, held.nextId, held.result.parts)));
    expect(await remainingOf(sub)).toBe(2000);
    expect(await heldRows(userId)).toEqual([]);
  });
});
