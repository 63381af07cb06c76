import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId, type Storage } from '../../src/db/index.js';
import { fundingPreferenceOf, returnFunding, settleFunding, takeFunding, type Funding } from '../../src/subscriptions/funding.js';
import { createTestStorages, storageKinds } from '../helpers/test-storage.js';

const now = 1_800_000_000;
const day = 86_400;

describe.each(storageKinds())('subscription funding on %s', (kind) => {
  let storage: Storage;
  let other: Storage;
  let cleanup: () => Promise<void>;
  let userSeq = 0;

  // A second pool on the same database: a second instance of the cluster.
  beforeAll(async () => {
    ({ storage, other, cleanup } = await createTestStorages(kind));
  });
  afterAll(async () => cleanup?.());

  async function newUser(preference?: string): Promise<number> {
    userSeq += 1;
    return insertReturningId(storage, 'users', {
      username: `u${userSeq}`,
      password: 'x',
      setting: preference ? JSON.stringify({ billing_preference: preference }) : '',
    });
  }

  async function grant(userId: number, allowance: number, extra: Record<string, unknown> = {}): Promise<number> {
    return insertReturningId(storage, 'user_subscriptions', {
      user_id: userId,
      plan_id: 1,
      plan_name: 'Pro',
      source: 'admin',
      status: 'active',
      period_quota: allowance,
      remaining_quota: allowance,
      period_start: now - day,
      period_end: now + day,
      ends_at: now + day,
      ...extra,
    });
  }

  const remainingOf = async (id: number) =>
    Number(
      (await storage.db.selectFrom('user_subscriptions').select('remaining_quota').where('id', '=', id).executeTakeFirstOrThrow())
        .remaining_quota,
    );
  const call = (userId: number, amount: number, extra: Record<string, unknown> = {}) => ({
    userId,
    model: 'gpt-4o',
    group: 'default',
    amount,
    now,
    ...extra,
  });

  it('reads the preference from users.setting, subscription_first by default', async () => {
    expect(fundingPreferenceOf('')).toBe('subscription_first');
    expect(fundingPreferenceOf('{"billing_preference":"wallet_only"}')).toBe('wallet_only');
    expect(fundingPreferenceOf('{"billing_preference":"nonsense"}')).toBe('subscription_first');
    expect(fundingPreferenceOf('not json')).toBe('subscription_first');
  });

  it('splits a call between the allowance and the wallet per preference', async () => {
    const first = await newUser();
    const sub = await grant(first, 1000);
    expect(await takeFunding(storage.db, call(first, 600))).toEqual({
      preference: 'subscription_first',
      fromSubscription: 600,
      fromWallet: 0,
      uncovered: 0,
      parts: [{ subscriptionId: sub, periodEnd: now + day, amount: 600 }],
    });
    expect(await takeFunding(storage.db, call(first, 700))).toMatchObject({ fromSubscription: 400, fromWallet: 300 });
    expect(await remainingOf(sub)).toBe(0);

    const walletOnly = await newUser('wallet_only');
    const untouched = await grant(walletOnly, 1000);
    expect(await takeFunding(storage.db, call(walletOnly, 500))).toEqual({
      preference: 'wallet_only',
      fromSubscription: 0,
      fromWallet: 500,
      uncovered: 0,
      parts: [],
    });
    expect(await remainingOf(untouched)).toBe(1000);

    const walletFirst = await newUser('wallet_first');
    const backup = await grant(walletFirst, 1000);
    expect(await takeFunding(storage.db, call(walletFirst, 500, { walletAvailable: 200 }))).toMatchObject({
      fromWallet: 200,
      fromSubscription: 300,
    });
    expect(await takeFunding(storage.db, call(walletFirst, 900, { walletAvailable: -50 }))).toMatchObject({
      fromWallet: 200,
      fromSubscription: 700,
    });
    expect(await takeFunding(storage.db, call(walletFirst, 100))).toMatchObject({ fromWallet: 100, fromSubscription: 0 });
    expect(await remainingOf(backup)).toBe(0);

    const only = await newUser('subscription_only');
    const onlySub = await grant(only, 1000);
    expect(await takeFunding(storage.db, call(only, 1200))).toEqual({
      preference: 'subscription_only',
      fromSubscription: 0,
      fromWallet: 0,
      uncovered: 1200,
      parts: [],
    });
    expect(await remainingOf(onlySub)).toBe(1000);
    expect(await takeFunding(storage.db, call(only, 1200, { allowPartial: true }))).toMatchObject({
      fromSubscription: 1000,
      fromWallet: 0,
      uncovered: 200,
    });
    expect(await remainingOf(onlySub)).toBe(0);
    // A preference given by the caller wins over the stored one.
    expect(await takeFunding(storage.db, call(only, 10, { preference: 'wallet_only' }))).toMatchObject({ fromWallet: 10 });
  });

  it('funds only covered calls, inside an active period, the period ending first first', async () => {
    const user = await newUser();
    const later = await grant(user, 100, { period_end: now + 5 * day });
    const sooner = await grant(user, 100, { period_end: now + 2 * day });
    const claude = await grant(user, 100, { models: JSON.stringify(['claude-sonnet-4']) });
    await grant(user, 100, { groups: JSON.stringify(['vip']) });
    await grant(user, 100, { status: 'expired' });
    await grant(user, 100, { period_start: now - 2 * day, period_end: now });
    await grant(user, 100, { period_start: now + 10, period_end: now + day });
    const funding = await takeFunding(storage.db, call(user, 150));
    expect(funding.parts.map((part) => [part.subscriptionId, part.amount])).toEqual([
      [sooner, 100],
      [later, 50],
    ]);
    expect(funding.fromWallet).toBe(0);
    expect(
      (await takeFunding(storage.db, call(user, 120, { model: 'claude-sonnet-4' }))).parts.map((part) => [
        part.subscriptionId,
        part.amount,
      ]),
    ).toEqual([
      [claude, 100],
      [later, 20],
    ]);
    expect((await takeFunding(storage.db, call(user, 200, { group: 'vip' }))).fromSubscription).toBe(130);
    expect((await takeFunding(storage.db, call(user, 500, { group: 'vip', model: 'o3' }))).fromSubscription).toBe(0);
  });

  it('takes and returns exactly under concurrency from two instances', async () => {
    const allowance = 20_000;
    const user = await newUser();
    const sub = await grant(user, allowance);
    const amounts = Array.from({ length: 240 }, (_, i) => 1 + ((i * 37) % 181));
    const total = amounts.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(allowance);
    const fundings = await Promise.all(amounts.map((amount, i) => takeFunding((i % 2 ? other : storage).db, call(user, amount))));
    const fromSubscription = fundings.reduce((a, f) => a + f.fromSubscription, 0);
    const fromWallet = fundings.reduce((a, f) => a + f.fromWallet, 0);
    expect(fromSubscription).toBe(allowance);
    expect(fromWallet).toBe(total - allowance);
    for (const [i, f] of fundings.entries()) expect(f.fromSubscription + f.fromWallet).toBe(amounts[i]);
    expect(await remainingOf(sub)).toBe(0);

    const results = await Promise.all(fundings.map((f, i) => returnFunding((i % 2 ? storage : other).db, f.parts)));
    expect(results.reduce((a, r) => a + r.returned, 0)).toBe(allowance);
    expect(await remainingOf(sub)).toBe(allowance);

    // Takes and returns racing each other: whatever is left equals the allowance minus what is still taken.
    const racing = await Promise.all(
      amounts.map(async (amount, i) => {
        const f = await takeFunding((i % 2 ? other : storage).db, call(user, amount));
        if (i % 3 === 0) {
          await returnFunding(storage.db, f.parts);
          return 0;
        }
        return f.fromSubscription;
      }),
    );
    const stillTaken = racing.reduce((a, b) => a + b, 0);
    expect(stillTaken).toBeLessThanOrEqual(allowance);
    expect(await remainingOf(sub)).toBe(allowance - stillTaken);
  });

  it('settles to the real cost: unused allowance goes back, more is funded like a new call', async () => {
    const user = await newUser();
    const sub = await grant(user, 1000);
    const held = await takeFunding(storage.db, call(user, 800));
    const settled = await settleFunding(storage.db, held, 300, call(user, 0));
    expect(settled).toMatchObject({ fromSubscription: 300, fromWallet: 0, parts: [{ subscriptionId: sub, amount: 300 }] });
    expect(await remainingOf(sub)).toBe(700);

    const big = await takeFunding(storage.db, call(user, 500));
    const more = await settleFunding(storage.db, big, 1500, call(user, 0));
    expect(more).toMatchObject({ fromSubscription: 700, fromWallet: 800, uncovered: 0 });
    expect(more.parts.reduce((a, p) => a + p.amount, 0)).toBe(700);
    expect(await remainingOf(sub)).toBe(0);

    const mixed: Funding = await takeFunding(storage.db, call(user, 100));
    expect(mixed).toMatchObject({ fromSubscription: 0, fromWallet: 100 });
    expect(await settleFunding(storage.db, mixed, 40, call(user, 0))).toMatchObject({ fromSubscription: 0, fromWallet: 40 });

    const walletFirst = await newUser('wallet_first');
    const wf = await grant(walletFirst, 1000);
    const hold = await takeFunding(storage.db, call(walletFirst, 600, { walletAvailable: 200 }));
    expect(hold).toMatchObject({ fromWallet: 200, fromSubscription: 400 });
    // wallet_first gives back the subscription's share first.
    expect(await settleFunding(storage.db, hold, 250, call(walletFirst, 0, { walletAvailable: 200 }))).toMatchObject({
      fromWallet: 200,
      fromSubscription: 50,
    });
    expect(await remainingOf(wf)).toBe(950);
  });

  it('does not give quota back to a period that has since been reset', async () => {
    const user = await newUser();
    const sub = await grant(user, 1000);
    const funding = await takeFunding(storage.db, call(user, 400));
    await storage.db
      .updateTable('user_subscriptions')
      .set({ period_start: now + day, period_end: now + 2 * day, remaining_quota: 1000 })
      .where('id', '=', sub)
      .execute();
    expect(await returnFunding(storage.db, funding.parts)).toEqual({ returned: 0, kept: [] });
    expect(await remainingOf(sub)).toBe(1000);
    await expect(takeFunding(storage.db, call(user, -1))).rejects.toThrow(RangeError);
    await expect(takeFunding(storage.db, call(user, 1.5))).rejects.toThrow(RangeError);
  });
});
