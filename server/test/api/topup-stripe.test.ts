import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { signedInClient } from '../helpers/session.js';
import { startStripeServer, type StripeServer } from '../helpers/stripe-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import type { ApiClient } from '../helpers/api-client.js';

describe.each(storageKinds())('card top-up through Stripe on %s', (kind) => {
  let stripe: StripeServer;
  let server: TestServer;
  let root: LoggedIn;
  let alice: LoggedIn;
  let vip: ApiClient;

  beforeAll(async () => {
    stripe = await startStripeServer();
    server = await startTestServer({ kind, env: { STRIPE_API_BASE_URL: stripe.url } });
    stripe.webhookUrl = `${server.url}/api/stripe/webhook`;
    root = await setupRootAndLogin(server);
    alice = await createUserAndLogin(server, root.client, 'alice');
    ({ client: vip } = await signedInClient(server, { username: 'vipcard', group: 'vip' }));
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server?.stop();
    await stripe?.close();
  });

  async function setOption(key: string, value: string) {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, res.text).toBe(200);
  }
  const quotaOf = async (userId: number) =>
    Number((await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota);
  const orderOf = (sessionId: string) =>
    server.ctx.storage.db.selectFrom('top_ups').selectAll().where('gateway_ref', '=', sessionId).executeTakeFirstOrThrow();

  it('is off until the API secret and the webhook secret are both set; both stay root-only and unreadable', async () => {
    for (const path of ['/api/user/stripe/amount', '/api/user/stripe/pay']) {
      const res = await alice.client.post(path, { amount: 10 });
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual({ success: false, message: '管理员未开启银行卡支付', data: null });
    }
    expect((await stripe.deliver('checkout.session.completed', { id: 'cs_x' })).status).toBe(400);
    expect((await server.client().get('/api/status')).body.data).toMatchObject({ enable_stripe_topup: false });
    await setOption('StripeApiSecret', stripe.secretKey);
    expect((await alice.client.post('/api/user/stripe/amount', { amount: 10 })).body.message).toBe('管理员未开启银行卡支付');
    await setOption('StripeWebhookSecret', stripe.webhookSecret);
    await setOption('ServerAddress', 'https://gate.example.com/');
    await setOption('StripeMinTopUp', '2');
    await setOption('StripeUnitPrice', '7.5');
    await setOption('TopupGroupRatio', JSON.stringify({ default: 1, vip: 0.5 }));
    const status = (await server.client().get('/api/status')).body.data;
    expect(status).toMatchObject({
      enable_stripe_topup: true,
      stripe_min_topup: 2,
      stripe_unit_price: 7.5,
      stripe_currency: 'usd',
      enable_online_topup: false,
    });

    const options = (await root.client.get('/api/option/')).body.data as Array<{ key: string; value: string }>;
    const byKey = new Map(options.map((option) => [option.key, option.value]));
    expect(byKey.get('StripeUnitPrice')).toBe('7.5');
    expect(byKey.has('StripeApiSecret') ? byKey.get('StripeApiSecret') : '').toBe('');
    expect(JSON.stringify(options)).not.toContain(stripe.secretKey);
    expect(JSON.stringify(options)).not.toContain(stripe.webhookSecret);
    const { client: admin } = await signedInClient(server, { username: 'opsadmin', role: 10 });
    expect((await admin.put('/api/option/', { key: 'StripeUnitPrice', value: '1' })).status).toBe(403);
    expect((await admin.put('/api/option/', { key: 'StripeApiSecret', value: 'sk_evil' })).status).toBe(403);
    expect(JSON.stringify((await admin.get('/api/option/')).body)).not.toMatch(/Stripe/);
    expect((await root.client.put('/api/option/', { key: 'StripeCurrency', value: 'US$' })).status).toBe(400);
  });

  it('quotes amount × StripeUnitPrice × TopupGroupRatio and enforces StripeMinTopUp', async () => {
    expect((await alice.client.post('/api/user/stripe/amount', { amount: 10 })).body).toEqual({
      success: true,
      message: 'success',
      data: '75.00',
    });
    expect((await vip.post('/api/user/stripe/amount', { amount: 3 })).body.data).toBe('11.25');
    const low = await alice.client.post('/api/user/stripe/pay', { amount: 1 });
    expect(low.status).toBe(400);
    expect(low.body.message).toBe('充值数量不能小于 2');
    expect((await alice.client.post('/api/user/stripe/pay', { amount: 'ten' })).status).toBe(400);
    expect((await server.client().post('/api/user/stripe/pay', { amount: 10 })).status).toBe(401);
  });

  it('creates a Checkout Session as the SDK sends it, with URLs from ServerAddress, and a pending order', async () => {
    const before = stripe.calls.length;
    const res = await alice.client.post('/api/user/stripe/pay', { amount: 4 }, { headers: { host: 'evil.example:8443' } });
    expect(res.status, res.text).toBe(200);
    const link: string = res.body.data.pay_link;
    expect(link.startsWith(`${stripe.url}/pay/cs_test_`)).toBe(true);
    const call = stripe.calls[before]!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/v1/checkout/sessions');
    expect(call.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(call.headers['stripe-version']).toBeTruthy();
    expect(call.form).toMatchObject({
      mode: 'payment',
      line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '3000', product_data: { name: 'TUC4' } } }],
      success_url: 'https://gate.example.com/topup?pay=success',
      cancel_url: 'https://gate.example.com/topup?pay=cancel',
      metadata: { user_id: String(alice.userId), kind: 'top_up' },
    });
    const sessionId = link.split('/').pop()!;
    const order = await orderOf(sessionId);
    expect(order).toMatchObject({
      user_id: alice.userId,
      amount: 4,
      money: 30,
      payment_method: 'stripe',
      status: 'pending',
      complete_time: 0,
    });
    expect((call.form as { client_reference_id: string }).client_reference_id).toBe(order.trade_no);
  });

  it('refuses without ServerAddress and answers a failing Stripe without its text, leaving no order', async () => {
    const count = async () => (await server.ctx.storage.db.selectFrom('top_ups').select('id').execute()).length;
    const before = await count();
    await setOption('ServerAddress', '');
    try {
      const res = await alice.client.post('/api/user/stripe/pay', { amount: 4 });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('管理员未设置服务器地址，无法发起银行卡支付');
    } finally {
      await setOption('ServerAddress', 'https://gate.example.com');
    }
    stripe.failWith = 500;
    try {
      const down = await alice.client.post('/api/user/stripe/pay', { amount: 4 });
      expect(down.status).toBe(503);
      expect(down.body.message).toBe('银行卡支付暂时不可用，请稍后再试');
      stripe.failWith = 400;
      const refused = await alice.client.post('/api/user/stripe/pay', { amount: 4 });
      expect(refused.status).toBe(400);
      expect(refused.text).not.toContain('simulated');
    } finally {
      stripe.failWith = null;
    }
    expect(await count()).toBe(before);
  });

  async function newSession(client: ApiClient, amount: number): Promise<string> {
    const res = await client.post('/api/user/stripe/pay', { amount });
    expect(res.status, res.text).toBe(200);
    return (res.body.data.pay_link as string).split('/').pop()!;
  }

  it('refuses forged, stale, unsigned and unknown events with a 4xx and credits nothing', async () => {
    const sessionId = await newSession(alice.client, 2);
    const session = stripe.pay(sessionId);
    const before = await quotaOf(alice.userId);
    const attempts: Array<[string, Promise<{ status: number; body: string }>, number]> = [
      ['wrong secret', stripe.deliver('checkout.session.completed', session, { secret: 'whsec_forged' }), 400],
      [
        'tampered signature',
        stripe.deliver('checkout.session.completed', session, { signature: `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` }),
        400,
      ],
      [
        'replayed after the tolerance',
        stripe.deliver('checkout.session.completed', session, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
        400,
      ],
      [
        'no signature',
        fetch(stripe.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'checkout.session.completed', data: { object: session } }),
        }).then(async (r) => ({ status: r.status, body: await r.text() })),
        400,
      ],
      ['unknown session', stripe.deliver('checkout.session.completed', { ...session, id: 'cs_test_unknown' }), 404],
      [
        "someone else's reference",
        stripe.deliver('checkout.session.completed', { ...session, client_reference_id: 'STRIPE1NOforeign' }),
        400,
      ],
    ];
    for (const [name, attempt, status] of attempts) {
      const res = await attempt;
      expect(res.status, `${name}: ${res.body}`).toBe(status);
      expect(JSON.parse(res.body).success, name).toBe(false);
    }
    expect(await quotaOf(alice.userId)).toBe(before);
    expect((await orderOf(sessionId)).status).toBe('pending');
  });

  it('credits a paid session exactly once, however often and concurrently Stripe delivers it', async () => {
    const sessionId = await newSession(alice.client, 3);
    const before = await quotaOf(alice.userId);
    // Not paid yet (an asynchronous payment method): acknowledged, nothing credited.
    const open = stripe.sessions.get(sessionId)!;
    expect((await stripe.deliver('checkout.session.completed', open)).status).toBe(200);
    expect(await quotaOf(alice.userId)).toBe(before);
    const session = stripe.pay(sessionId);
    const first = await stripe.deliver('checkout.session.completed', session);
    expect(first.status, first.body).toBe(200);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stripe.deliver(i % 2 ? 'checkout.session.completed' : 'checkout.session.async_payment_succeeded', session),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(await quotaOf(alice.userId)).toBe(before + 3 * 500000);
    const order = await orderOf(sessionId);
    expect(order.status).toBe('success');
    expect(order.complete_time).toBeGreaterThan(0);
    const logs = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('type', '=', 1)
      .where('content', 'like', `%${order.trade_no}`)
      .execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ user_id: alice.userId, quota: 1500000 });
  });

  it('credits concurrent first deliveries of one session once', async () => {
    const sessionId = await newSession(vip, 2);
    const userId = (await orderOf(sessionId)).user_id;
    const before = await quotaOf(userId);
    const session = stripe.pay(sessionId);
    const replies = await Promise.all(Array.from({ length: 24 }, () => stripe.deliver('checkout.session.completed', session)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(await quotaOf(userId)).toBe(before + 2 * 500000);
  });

  it('marks an expired session expired; a later completion credits nothing', async () => {
    const sessionId = await newSession(alice.client, 2);
    const before = await quotaOf(alice.userId);
    expect((await stripe.deliver('checkout.session.expired', { ...stripe.sessions.get(sessionId)!, status: 'expired' })).status).toBe(200);
    expect((await orderOf(sessionId)).status).toBe('expired');
    expect((await stripe.deliver('checkout.session.completed', stripe.pay(sessionId))).status).toBe(200);
    expect(await quotaOf(alice.userId)).toBe(before);
    expect((await stripe.deliver('customer.created', { id: 'cus_1', object: 'customer' })).status).toBe(200);
  });

  it("lists top-up records with their gateway and state: one's own, and everyone's for admins", async () => {
    await server.ctx.storage.db
      .insertInto('top_ups')
      .values({
        user_id: alice.userId,
        amount: 1,
        money: 7.3,
        trade_no: 'USR-EPAY-1',
        payment_method: 'zfb',
        status: 'pending',
        create_time: 1,
      })
      .execute();
    const own = await alice.client.get('/api/user/topup/self?p=1&page_size=100');
    expect(own.status, own.text).toBe(200);
    const items = own.body.data.items as Array<Record<string, unknown>>;
    expect(items.every((item) => item.user_id === alice.userId)).toBe(true);
    expect(items.find((item) => item.trade_no === 'USR-EPAY-1')).toMatchObject({
      gateway: 'epay',
      payment_method: 'zfb',
      status: 'pending',
    });
    expect(new Set(items.filter((item) => item.gateway === 'stripe').map((item) => item.status))).toEqual(
      new Set(['pending', 'success', 'expired']),
    );
    expect(own.body.data.total).toBe(items.length);
    expect((await alice.client.get('/api/user/topup')).status).toBe(403);
    const all = await root.client.get('/api/user/topup?keyword=vipcard');
    expect(all.status).toBe(200);
    expect(all.body.data.items.length).toBeGreaterThan(0);
    expect(all.body.data.items.every((item: { username: string }) => item.username === 'vipcard')).toBe(true);
    expect((await root.client.get('/api/user/topup?page_size=1000')).status).toBe(400);
  });
});
