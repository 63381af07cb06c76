import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSubscriptionPeriods } from '../../src/api/subscriptions/period-job.js';
import { takeFunding } from '../../src/subscriptions/funding.js';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { signedInClient } from '../helpers/session.js';
import { startStripeServer, type StripeServer } from '../helpers/stripe-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const plan = {
  name: 'Pro',
  description: 'GPT every month',
  price: 20,
  period_unit: 'month',
  period_count: 1,
  quota: 5_000_000,
  models: ['gpt-4o'],
  groups: [],
};

describe.each(storageKinds())('subscriptions on %s', (kind) => {
  let stripe: StripeServer;
  let server: TestServer;
  let root: LoggedIn;
  let alice: LoggedIn;
  let bob: LoggedIn;
  let planId: number;

  beforeAll(async () => {
    stripe = await startStripeServer();
    server = await startTestServer({ kind, env: { STRIPE_API_BASE_URL: stripe.url } });
    stripe.webhookUrl = `${server.url}/api/stripe/webhook`;
    root = await setupRootAndLogin(server);
    alice = await createUserAndLogin(server, root.client, 'alice');
    bob = await createUserAndLogin(server, root.client, 'bob');
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server?.stop();
    await stripe?.close();
  });

  const db = () => server.ctx.storage.db;
  const subscriptionsOf = (userId: number) =>
    db().selectFrom('user_subscriptions').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  it('lets admins define plans, with the shared rules, and shows users the enabled ones', async () => {
    const created = await root.client.post('/api/subscription/admin/plan', plan);
    expect(created.status, created.text).toBe(200);
    expect(created.body.data).toMatchObject({ ...plan, enabled: true, currency: 'usd' });
    planId = created.body.data.id;
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ ...plan, name: '' }, 'name: 套餐名称长度必须在 1 到 64 个字符之间'],
      [{ ...plan, quota: 0 }, 'quota: 每周期额度必须是大于 0 的整数'],
      [{ ...plan, period_unit: 'decade' }, 'period_unit: 周期单位必须是 day、week、month 或 year'],
      [{ ...plan, period_count: 13 }, '周期不能超过一年'],
      [{ ...plan, price: -1 }, 'price: 价格必须是不小于 0 的数字'],
      [{ ...plan, models: 'gpt-4o' }, 'models: 模型和分组必须是字符串列表'],
    ];
    for (const [body, message] of refusals) {
      const res = await root.client.post('/api/subscription/admin/plan', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toBe(message);
    }
    const hidden = await root.client.post('/api/subscription/admin/plan', { ...plan, name: 'Hidden', enabled: false });
    const free = await root.client.post('/api/subscription/admin/plan', {
      ...plan,
      name: 'Staff',
      price: 0,
      period_unit: 'day',
      period_count: 7,
      models: [],
    });
    expect(
      (await root.client.put('/api/subscription/admin/plan', { ...plan, id: hidden.body.data.id, name: 'Hidden v2', enabled: false })).body
        .data.name,
    ).toBe('Hidden v2');
    expect((await alice.client.post('/api/subscription/admin/plan', plan)).status).toBe(403);
    expect((await alice.client.get('/api/subscription/admin/plans')).status).toBe(403);
    const visible = (await alice.client.get('/api/subscription/plans')).body.data.map((p: { name: string }) => p.name);
    expect(visible).toEqual(['Pro', 'Staff']);
    expect((await root.client.get('/api/subscription/admin/plans')).body.data).toHaveLength(3);
    expect((await root.client.delete(`/api/subscription/admin/plan/${hidden.body.data.id}`)).status).toBe(200);
    expect((await root.client.delete('/api/subscription/admin/plan/999999')).status).toBe(404);
    expect(free.status).toBe(200);
  });

  it('sells a plan by card in Stripe subscription mode once Stripe is configured', async () => {
    expect((await alice.client.post('/api/subscription/stripe/pay', { plan_id: planId })).body.message).toBe('管理员未开启银行卡支付');
    for (const [key, value] of [
      ['StripeApiSecret', stripe.secretKey],
      ['StripeWebhookSecret', stripe.webhookSecret],
      ['ServerAddress', 'https://gate.example.com'],
      ['StripeCurrency', 'eur'],
    ]) {
      expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
    }
    const staff = (await root.client.get('/api/subscription/admin/plans')).body.data.find((p: { name: string }) => p.name === 'Staff');
    expect((await alice.client.post('/api/subscription/stripe/pay', { plan_id: staff.id })).body.message).toBe(
      '该套餐价格为 0，只能由管理员授予',
    );
    expect((await alice.client.post('/api/subscription/stripe/pay', { plan_id: 999999 })).status).toBe(404);
    const res = await alice.client.post('/api/subscription/stripe/pay', { plan_id: planId });
    expect(res.status, res.text).toBe(200);
    const call = stripe.calls.at(-1)!;
    expect(call.path).toBe('/v1/checkout/sessions');
    expect(call.form).toMatchObject({
      mode: 'subscription',
      line_items: [
        {
          quantity: '1',
          price_data: {
            currency: 'eur',
            unit_amount: '2000',
            recurring: { interval: 'month', interval_count: '1' },
            product_data: { name: 'Pro' },
          },
        },
      ],
      success_url: 'https://gate.example.com/subscription?pay=success',
      cancel_url: 'https://gate.example.com/subscription?pay=cancel',
    });
    const sessionId = (res.body.data.pay_link as string).split('/').pop()!;
    const order = await db().selectFrom('subscription_orders').selectAll().where('gateway_ref', '=', sessionId).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ user_id: alice.userId, plan_id: planId, money: 20, currency: 'eur', status: 'pending' });

    // Paid: the completed session (and the first invoice), delivered often and at once, start one subscription.
    const session = stripe.pay(sessionId);
    const deliveries = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 2
          ? stripe.deliver('invoice.paid', stripe.firstInvoice(String(session.subscription)))
          : stripe.deliver('checkout.session.completed', session),
      ),
    );
    expect(deliveries.map((d) => d.status)).toEqual(Array(12).fill(200));
    const subs = await subscriptionsOf(alice.userId);
    expect(subs).toHaveLength(1);
    const sub = stripe.subscriptions.get(String(session.subscription))!;
    const item = (sub.items as { data: Array<{ current_period_start: number; current_period_end: number }> }).data[0]!;
    expect(subs[0]).toMatchObject({
      plan_id: planId,
      plan_name: 'Pro',
      source: 'stripe',
      status: 'active',
      period_quota: 5_000_000,
      remaining_quota: 5_000_000,
      period_start: item.current_period_start,
      period_end: item.current_period_end,
      ends_at: 0,
      stripe_subscription_id: sub.id,
      models: '["gpt-4o"]',
    });
    expect(
      (await db().selectFrom('subscription_orders').select('status').where('id', '=', order.id).executeTakeFirstOrThrow()).status,
    ).toBe('success');
    expect(stripe.calls.filter((c) => c.method === 'GET' && c.path === `/v1/subscriptions/${sub.id}`).length).toBeGreaterThan(0);

    const self = (await alice.client.get('/api/subscription/self')).body.data;
    expect(self.billing_preference).toBe('subscription_first');
    expect(self.subscriptions[0]).toMatchObject({
      plan_name: 'Pro',
      renews: true,
      is_funding: true,
      remaining_quota: 5_000_000,
      models: ['gpt-4o'],
    });
    const again = await alice.client.post('/api/subscription/stripe/pay', { plan_id: planId });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('你已有自动续费的订阅，请先取消');
    expect((await stripe.deliver('checkout.session.completed', { ...session, id: 'cs_test_nobody' })).status).toBe(404);
  });

  it('resets the allowance once per paid renewal, whatever the duplicate deliveries', async () => {
    const [sub] = await subscriptionsOf(alice.userId);
    const taken = await takeFunding(db(), { userId: alice.userId, model: 'gpt-4o', group: 'default', amount: 1_200_000 });
    expect(taken).toMatchObject({ fromSubscription: 1_200_000, fromWallet: 0 });
    expect((await takeFunding(db(), { userId: alice.userId, model: 'o3', group: 'default', amount: 10 })).fromWallet).toBe(10);
    const invoice = stripe.renew(sub!.stripe_subscription_id!);
    const replies = await Promise.all(Array.from({ length: 10 }, () => stripe.deliver('invoice.paid', invoice)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const [renewed] = await subscriptionsOf(alice.userId);
    expect(renewed).toMatchObject({ remaining_quota: 5_000_000, period_start: sub!.period_end });
    expect(renewed!.period_end).toBeGreaterThan(sub!.period_end);
    await takeFunding(db(), { userId: alice.userId, model: 'gpt-4o', group: 'default', amount: 100, now: renewed!.period_start + 1 });
    expect((await stripe.deliver('invoice.paid', invoice)).status).toBe(200);
    expect((await subscriptionsOf(alice.userId))[0]!.remaining_quota).toBe(4_999_900);
  });

  it('cancels at the end of the period: funding until then, expired by the period job after', async () => {
    const [sub] = await subscriptionsOf(alice.userId);
    expect((await bob.client.post('/api/subscription/self/cancel', { id: sub!.id })).status).toBe(404);
    const res = await alice.client.post('/api/subscription/self/cancel', { id: sub!.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('订阅已取消，将在当前周期结束时停止');
    const call = stripe.calls.at(-1)!;
    expect(call).toMatchObject({
      method: 'POST',
      path: `/v1/subscriptions/${sub!.stripe_subscription_id}`,
      form: { cancel_at_period_end: 'true' },
    });
    const [cancelled] = await subscriptionsOf(alice.userId);
    expect(cancelled).toMatchObject({ status: 'active', ends_at: sub!.period_end });
    expect(cancelled!.cancelled_at).toBeGreaterThan(0);
    expect((await alice.client.post('/api/subscription/self/cancel', { id: sub!.id })).body.message).toBe('该订阅不会续费，无需取消');
    // Stripe confirms; a resubscription is allowed now.
    expect((await stripe.deliver('customer.subscription.updated', stripe.subscriptions.get(sub!.stripe_subscription_id!)!)).status).toBe(
      200,
    );
    expect((await subscriptionsOf(alice.userId))[0]!.ends_at).toBe(sub!.period_end);
    const inPeriod = await takeFunding(db(), {
      userId: alice.userId,
      model: 'gpt-4o',
      group: 'default',
      amount: 50,
      now: sub!.period_end - 1,
    });
    expect(inPeriod.fromSubscription).toBe(50);
    expect(await runSubscriptionPeriods(server.ctx, { now: sub!.period_end - 1 })).toMatchObject({ renewed: 0, expired: 0 });
    expect(await runSubscriptionPeriods(server.ctx, { now: sub!.period_end })).toMatchObject({ renewed: 0, expired: 1 });
    expect(await runSubscriptionPeriods(server.ctx, { now: sub!.period_end })).toMatchObject({ renewed: 0, expired: 0 });
    expect((await subscriptionsOf(alice.userId))[0]!.status).toBe('expired');
    expect(
      (await takeFunding(db(), { userId: alice.userId, model: 'gpt-4o', group: 'default', amount: 50, now: sub!.period_end - 1 }))
        .fromWallet,
    ).toBe(50);
  });

  it('lets an admin grant a plan for several periods: reset at each period, ended after the last', async () => {
    const staff = (await root.client.get('/api/subscription/admin/plans')).body.data.find((p: { name: string }) => p.name === 'Staff');
    expect((await alice.client.post('/api/subscription/admin/grant', { user_id: bob.userId, plan_id: staff.id })).status).toBe(403);
    expect((await root.client.post('/api/subscription/admin/grant', { user_id: 999999, plan_id: staff.id })).status).toBe(404);
    expect((await root.client.post('/api/subscription/admin/grant', { user_id: bob.userId, plan_id: staff.id, periods: 0 })).status).toBe(
      400,
    );
    const res = await root.client.post('/api/subscription/admin/grant', { user_id: bob.userId, plan_id: staff.id, periods: 3 });
    expect(res.status, res.text).toBe(200);
    const week = 7 * 86_400;
    const granted = res.body.data;
    expect(granted).toMatchObject({ source: 'admin', renews: false, is_funding: true, remaining_quota: 5_000_000 });
    expect(granted.period_end - granted.period_start).toBe(week);
    expect(granted.ends_at - granted.period_start).toBe(3 * week);
    await takeFunding(db(), { userId: bob.userId, model: 'any-model', group: 'default', amount: 4_000_000 });
    const second = granted.period_end + 5;
    expect(await runSubscriptionPeriods(server.ctx, { now: second })).toMatchObject({ renewed: 1, expired: 0 });
    expect(await runSubscriptionPeriods(server.ctx, { now: second })).toMatchObject({ renewed: 0, expired: 0 });
    let [row] = await subscriptionsOf(bob.userId);
    expect(row).toMatchObject({
      status: 'active',
      period_start: granted.period_end,
      period_end: granted.period_end + week,
      remaining_quota: 5_000_000,
    });
    // No instance ran through the third period: the job jumps to the period that is current.
    expect(await runSubscriptionPeriods(server.ctx, { now: granted.ends_at - 10 })).toMatchObject({ renewed: 1, expired: 0 });
    [row] = await subscriptionsOf(bob.userId);
    expect(row).toMatchObject({ period_start: granted.ends_at - week, period_end: granted.ends_at });
    expect(await runSubscriptionPeriods(server.ctx, { now: granted.ends_at })).toMatchObject({ renewed: 0, expired: 1 });
    expect((await root.client.get(`/api/subscription/admin/user/${bob.userId}`)).body.data.subscriptions[0]).toMatchObject({
      status: 'expired',
      is_funding: false,
    });
  });

  it("keeps each user's funding preference, with new-api's names", async () => {
    expect((await bob.client.put('/api/subscription/self/preference', { billing_preference: 'cheapest' })).status).toBe(400);
    const res = await bob.client.put('/api/subscription/self/preference', { billing_preference: 'wallet_only' });
    expect(res.status).toBe(200);
    expect((await bob.client.get('/api/subscription/self')).body.data.billing_preference).toBe('wallet_only');
    const staff = (await root.client.get('/api/subscription/admin/plans')).body.data.find((p: { name: string }) => p.name === 'Staff');
    await root.client.post('/api/subscription/admin/grant', { user_id: bob.userId, plan_id: staff.id });
    expect(await takeFunding(db(), { userId: bob.userId, model: 'x', group: 'default', amount: 10 })).toMatchObject({
      preference: 'wallet_only',
      fromWallet: 10,
    });
    const setting = JSON.parse(
      (await db().selectFrom('users').select('setting').where('id', '=', bob.userId).executeTakeFirstOrThrow()).setting,
    );
    expect(setting.billing_preference).toBe('wallet_only');
  });

  it('lets a user hold one pending purchase: simultaneous requests cannot both be paid', async () => {
    const { client: dave, userId: daveId } = await signedInClient(server, { username: 'dave' });
    const burst = await Promise.all(Array.from({ length: 10 }, () => dave.post('/api/subscription/stripe/pay', { plan_id: planId })));
    const opened = burst.filter((res) => res.status === 200);
    expect(opened.length).toBeGreaterThanOrEqual(1);
    for (const res of burst.filter((one) => one.status !== 200)) {
      expect(res.status, res.text).toBe(409);
      expect(res.body.message).toBe('你有一笔订阅购买正在进行中，请稍后再试');
    }
    // Whatever got a link: one checkout is open, every earlier one was expired at Stripe first.
    const sessions = opened.map((res) => (res.body.data.pay_link as string).split('/').pop()!);
    const paid = sessions.filter((id) => {
      try {
        stripe.pay(id);
        return true;
      } catch {
        return false;
      }
    });
    expect(paid).toHaveLength(1);
    expect(
      await db().selectFrom('subscription_orders').select('id').where('user_id', '=', daveId).where('status', '=', 'pending').execute(),
    ).toHaveLength(1);
    expect((await stripe.deliver('checkout.session.completed', stripe.sessions.get(paid[0]!)!)).status).toBe(200);
    expect(await subscriptionsOf(daveId)).toHaveLength(1);

    // An abandoned checkout is replaced: the earlier session is expired at Stripe, its order too.
    const { client: erin, userId: erinId } = await signedInClient(server, { username: 'erin' });
    const first = await erin.post('/api/subscription/stripe/pay', { plan_id: planId });
    const second = await erin.post('/api/subscription/stripe/pay', { plan_id: planId });
    expect([first.status, second.status]).toEqual([200, 200]);
    const firstSession = (first.body.data.pay_link as string).split('/').pop()!;
    expect(stripe.sessions.get(firstSession)!.status).toBe('expired');
    expect(() => stripe.pay(firstSession)).toThrow(/expired/);
    const orders = await db()
      .selectFrom('subscription_orders')
      .select(['status', 'pending_user_id'])
      .where('user_id', '=', erinId)
      .orderBy('id')
      .execute();
    expect(orders).toEqual([
      { status: 'expired', pending_user_id: null },
      { status: 'pending', pending_user_id: erinId },
    ]);

    // A checkout paid whose webhook has not come yet: a new purchase is refused.
    stripe.pay((second.body.data.pay_link as string).split('/').pop()!);
    const third = await erin.post('/api/subscription/stripe/pay', { plan_id: planId });
    expect(third.status).toBe(409);
    expect(third.body.message).toBe('你的上一笔订阅已付款，正在开通，请稍后刷新');
    const english = await erin.request(
      'POST',
      '/api/subscription/stripe/pay',
      { plan_id: planId },
      { headers: { 'accept-language': 'en' } },
    );
    expect(english.body.message).toBe('Your previous subscription purchase is paid and being activated. Refresh shortly');
  });

  it("shows an admin a user's subscriptions in the user editor, to grant and end there, for users below their role", async () => {
    const { client: admin, userId: adminId } = await signedInClient(server, { username: 'helen', role: 10 });
    const { userId: otherAdminId } = await signedInClient(server, { username: 'ivan', role: 10 });
    const { client: gina, userId: ginaId } = await signedInClient(server, { username: 'gina' });
    expect((await gina.get(`/api/subscription/admin/user/${ginaId}`)).status).toBe(403);
    expect((await admin.get(`/api/subscription/admin/user/${ginaId}`)).body.data).toEqual({
      billing_preference: 'subscription_first',
      subscriptions: [],
    });

    const granted = await admin.post('/api/subscription/admin/grant', { user_id: ginaId, plan_id: planId, periods: 2 });
    expect(granted.status, granted.text).toBe(200);
    expect(granted.body.message).toBe('订阅已授予');
    const [view] = (await admin.get(`/api/subscription/admin/user/${ginaId}`)).body.data.subscriptions;
    expect(view).toMatchObject({
      id: granted.body.data.id,
      plan_name: 'Pro',
      status: 'active',
      source: 'admin',
      remaining_quota: 5_000_000,
      period_quota: 5_000_000,
      renews: false,
      is_funding: true,
    });
    expect(view.period_end).toBeGreaterThan(view.period_start);
    expect(view.ends_at).toBeGreaterThan(view.period_end);

    // Not on an admin of the same role, nor on themselves.
    for (const userId of [otherAdminId, adminId]) {
      const refused = await admin.post('/api/subscription/admin/grant', { user_id: userId, plan_id: planId, periods: 1 });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe('无权更新同权限等级或更高权限等级的用户信息');
    }
    const rootGrant = await root.client.post('/api/subscription/admin/grant', { user_id: otherAdminId, plan_id: planId, periods: 1 });
    expect((await admin.post('/api/subscription/admin/revoke', { id: rootGrant.body.data.id })).status).toBe(403);

    const ended = await admin.post('/api/subscription/admin/revoke', { id: view.id });
    expect(ended.status).toBe(200);
    expect(ended.body.message).toBe('订阅已终止');
    expect((await admin.get(`/api/subscription/admin/user/${ginaId}`)).body.data.subscriptions[0]).toMatchObject({
      id: view.id,
      status: 'expired',
      is_funding: false,
    });
  });

  it('revokes at once, cancelling a renewing Stripe subscription at Stripe', async () => {
    const { client: carol, userId: carolId } = await signedInClient(server, { username: 'carol' });
    const pay = await carol.post('/api/subscription/stripe/pay', { plan_id: planId });
    const sessionId = (pay.body.data.pay_link as string).split('/').pop()!;
    expect((await stripe.payAndNotify(sessionId)).map((d) => d.status)).toEqual([200, 200]);
    const [sub] = await subscriptionsOf(carolId);
    expect((await carol.post('/api/subscription/admin/revoke', { id: sub!.id })).status).toBe(403);
    expect((await root.client.post('/api/subscription/admin/revoke', { id: sub!.id })).status).toBe(200);
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/subscriptions/${sub!.stripe_subscription_id}` });
    expect((await subscriptionsOf(carolId))[0]!.status).toBe('expired');
    expect((await takeFunding(db(), { userId: carolId, model: 'gpt-4o', group: 'default', amount: 5 })).fromWallet).toBe(5);
    // Stripe's deletion event afterwards changes nothing.
    expect((await stripe.deliver('customer.subscription.deleted', stripe.subscriptions.get(sub!.stripe_subscription_id!)!)).status).toBe(
      200,
    );
  });
});
