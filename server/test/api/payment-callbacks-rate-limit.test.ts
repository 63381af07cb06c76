import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../src/db/index.js';
import { epaySign } from '../../src/api/topup/epay.js';
import { createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startStripeServer, type StripeServer } from '../helpers/stripe-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * A payment gateway calls back from a few addresses of its own, for every buyer at once: on a busy
 * site the global per-IP /api limit would refuse paid orders (Stripe then retries for days, an Epay
 * gateway gives up). The callbacks are authenticated by their signatures, so the limit neither counts
 * nor refuses them; every other /api route from the same address is still limited.
 */
const redisUrl = process.env.TEST_REDIS_URL;
const cacheBackends = [
  { name: 'memory', enabled: true, env: {} as Record<string, string> },
  {
    name: 'redis',
    enabled: Boolean(redisUrl),
    env: { REDIS_CONN_STRING: redisUrl ?? '', REDIS_KEY_PREFIX: `mg-test-${randomBytes(4).toString('hex')}:` },
  },
];
const limit = 3;
const epayKey = 'epay-secret-key';

describe.each(cacheBackends)('payment callbacks under the global API rate limit on the $name cache', ({ enabled, env }) => {
  let server: TestServer;
  let stripe: StripeServer;
  let userId: number;

  beforeAll(async () => {
    if (!enabled) return;
    stripe = await startStripeServer();
    server = await startTestServer({
      env: { ...env, GLOBAL_API_RATE_LIMIT: String(limit), GLOBAL_API_RATE_LIMIT_DURATION: '300', STRIPE_API_BASE_URL: stripe.url },
    });
    stripe.webhookUrl = `${server.url}/api/stripe/webhook`;
    // Set up without /api calls: those would use up this address's window before the test starts.
    for (const [key, value] of [
      ['StripeApiSecret', stripe.secretKey],
      ['StripeWebhookSecret', stripe.webhookSecret],
      ['ServerAddress', 'https://gate.example.com'],
      ['PayAddress', 'https://pay.example.com'],
      ['EpayId', '1001'],
      ['EpayKey', epayKey],
      ['QuotaPerUnit', '1000'],
    ] as const)
      await setOption(server.ctx, key, value);
    userId = await createRelayUser(server.ctx, { quota: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await stripe?.close();
  });

  const quota = async () =>
    Number((await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota);
  const order = (tradeNo: string, method: string, gatewayRef = '') =>
    insertReturningId(server.ctx.storage, 'top_ups', {
      user_id: userId,
      amount: 2,
      money: 2,
      trade_no: tradeNo,
      payment_method: method,
      status: 'pending',
      create_time: Math.floor(Date.now() / 1000),
      gateway_ref: gatewayRef,
    });
  const statusOf = async (tradeNo: string) =>
    (await server.ctx.storage.db.selectFrom('top_ups').select('status').where('trade_no', '=', tradeNo).executeTakeFirstOrThrow()).status;

  it.skipIf(!enabled)('credits paid orders from an address whose window is used up, and still limits its other /api calls', async () => {
    const client = server.client();
    for (let i = 1; i <= limit; i += 1) expect((await client.get('/api/status')).status, `request ${i}`).toBe(200);
    expect((await client.get('/api/status')).status).toBe(429);

    // Stripe: more signed events than the window holds, from the same address; one of them pays an order.
    const tradeNo = `card-${randomBytes(4).toString('hex')}`;
    const sessionId = `cs_test_${randomBytes(6).toString('hex')}`;
    await order(tradeNo, 'stripe', sessionId);
    for (let i = 0; i < limit; i += 1) {
      const unknown = await stripe.deliver('checkout.session.completed', {
        id: `cs_test_other${i}`,
        object: 'checkout.session',
        client_reference_id: 'x',
        payment_status: 'paid',
        mode: 'payment',
      });
      expect(unknown.status, unknown.body).toBe(404);
    }
    const paid = await stripe.deliver('checkout.session.completed', {
      id: sessionId,
      object: 'checkout.session',
      client_reference_id: tradeNo,
      payment_status: 'paid',
      mode: 'payment',
    });
    expect(paid.status, paid.body).toBe(200);
    expect(await statusOf(tradeNo)).toBe('success');
    expect(await quota()).toBe(2000);

    // Epay: a forged notify is answered 'fail' (not 429), a signed one completes its order.
    const epayTradeNo = `epay-${randomBytes(4).toString('hex')}`;
    await order(epayTradeNo, 'zfb');
    const fields: Record<string, string> = {
      pid: '1001',
      type: 'alipay',
      out_trade_no: epayTradeNo,
      trade_no: 'gw-1',
      name: 'TUC2',
      money: '2.00',
      trade_status: 'TRADE_SUCCESS',
    };
    for (let i = 0; i < limit; i += 1) {
      const forged = await client.get(`/api/user/epay/notify?${new URLSearchParams({ ...fields, sign: 'bad', sign_type: 'MD5' })}`);
      expect(forged.status).toBe(200);
      expect(forged.text).toBe('fail');
    }
    const notify = await client.get(
      `/api/user/epay/notify?${new URLSearchParams({ ...fields, sign: epaySign(fields, epayKey), sign_type: 'MD5' })}`,
    );
    expect(notify.text).toBe('success');
    expect(await statusOf(epayTradeNo)).toBe('success');
    expect(await quota()).toBe(4000);

    // The callbacks were not counted, and the address's window still refuses its other /api calls.
    expect(await server.ctx.cache.count('rl:api:127.0.0.1')).toBe(limit + 1);
    expect((await client.get('/api/status')).status).toBe(429);
  });
});
