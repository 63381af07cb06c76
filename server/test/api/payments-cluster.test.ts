import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSubscriptionPeriods } from '../../src/api/subscriptions/period-job.js';
import { setupRootAndLogin, createUserAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startStripeServer, type StripeServer } from '../helpers/stripe-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

const redisUrl = process.env.TEST_REDIS_URL;
const clusterKinds = storageKinds().filter((kind) => kind !== 'sqlite');
const isEnabled = Boolean(redisUrl) && clusterKinds.length > 0;

/**
 * Two instances (master and slave) on one PostgreSQL or MySQL database sharing one Redis: Stripe's
 * duplicate deliveries split between them credit a top-up once and start or renew a subscription
 * once, and the period job resets a period once.
 */
// Skipped (listed as such) without TEST_REDIS_URL and TEST_POSTGRES_DSN or TEST_MYSQL_DSN.
describe.skipIf(!isEnabled).each(isEnabled ? clusterKinds : ['postgres' as const])(
  'payments on two instances of %s sharing Redis',
  (kind) => {
    let stripe: StripeServer;
    let database: TestDatabase;
    let servers: TestServer[];
    let root: LoggedIn;
    let alice: LoggedIn;

    const hooks = () => servers.map((server) => `${server.url}/api/stripe/webhook`);
    const db = () => servers[0]!.ctx.storage.db;

    beforeAll(async () => {
      stripe = await startStripeServer();
      database = await createTestDatabase(kind);
      const env = {
        REDIS_CONN_STRING: redisUrl!,
        REDIS_KEY_PREFIX: `mg-pay-${randomBytes(4).toString('hex')}:`,
        STRIPE_API_BASE_URL: stripe.url,
      };
      servers = [await startTestServer({ database, env: { ...env, NODE_TYPE: 'master' } })];
      servers.push(await startTestServer({ database, env: { ...env, NODE_TYPE: 'slave' } }));
      stripe.webhookUrl = hooks()[0]!;
      root = await setupRootAndLogin(servers[0]!);
      alice = await createUserAndLogin(servers[0]!, root.client, 'alice');
      for (const [key, value] of [
        ['StripeApiSecret', stripe.secretKey],
        ['StripeWebhookSecret', stripe.webhookSecret],
        ['ServerAddress', 'https://gate.example.com'],
      ]) {
        expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
      }
      // The slave hears of the change through Redis.
      for (let i = 0; i < 100 && servers[1]!.ctx.options.get('StripeWebhookSecret') === ''; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(servers[1]!.ctx.options.get('StripeWebhookSecret')).toBe(stripe.webhookSecret);
    });
    afterAll(async () => {
      for (const server of [...(servers ?? [])].reverse()) await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await database?.drop();
      await stripe?.close();
    });

    it('credits a card top-up once when duplicate deliveries reach both instances at once', async () => {
      const res = await alice.client.post('/api/user/stripe/pay', { amount: 5 });
      expect(res.status, res.text).toBe(200);
      const session = stripe.pay((res.body.data.pay_link as string).split('/').pop()!);
      const before = Number(
        (await db().selectFrom('users').select('quota').where('id', '=', alice.userId).executeTakeFirstOrThrow()).quota,
      );
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => stripe.deliver('checkout.session.completed', session, { url: hooks()[i % 2] })),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(30).fill(200));
      const after = Number((await db().selectFrom('users').select('quota').where('id', '=', alice.userId).executeTakeFirstOrThrow()).quota);
      expect(after - before).toBe(5 * 500000);
      const logs = await db().selectFrom('logs').select('id').where('type', '=', 1).where('user_id', '=', alice.userId).execute();
      expect(logs).toHaveLength(1);
    });

    it('starts a bought subscription once and resets a renewed period once across both instances', async () => {
      const plan = await root.client.post('/api/subscription/admin/plan', {
        name: 'Team',
        price: 9,
        period_unit: 'month',
        period_count: 1,
        quota: 1_000_000,
      });
      const res = await alice.client.post('/api/subscription/stripe/pay', { plan_id: plan.body.data.id });
      const session = stripe.pay((res.body.data.pay_link as string).split('/').pop()!);
      const started = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stripe.deliver('checkout.session.completed', session, { url: hooks()[i % 2] })),
      );
      expect(started.every((r) => r.status === 200)).toBe(true);
      const rows = await db().selectFrom('user_subscriptions').selectAll().where('user_id', '=', alice.userId).execute();
      expect(rows).toHaveLength(1);
      await db().updateTable('user_subscriptions').set({ remaining_quota: 10 }).where('id', '=', rows[0]!.id).execute();
      const invoice = stripe.renew(String(session.subscription));
      const renewed = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stripe.deliver('invoice.paid', invoice, { url: hooks()[i % 2] })),
      );
      expect(renewed.every((r) => r.status === 200)).toBe(true);
      const [row] = await db().selectFrom('user_subscriptions').selectAll().where('id', '=', rows[0]!.id).execute();
      expect(row).toMatchObject({ remaining_quota: 1_000_000, period_start: rows[0]!.period_end });
    });

    it('runs the period job on one instance at a time; a reset happens once', async () => {
      const plan = await root.client.post('/api/subscription/admin/plan', {
        name: 'Daily',
        price: 0,
        period_unit: 'day',
        period_count: 1,
        quota: 700,
      });
      const grant = await root.client.post('/api/subscription/admin/grant', {
        user_id: alice.userId,
        plan_id: plan.body.data.id,
        periods: 5,
      });
      const granted = grant.body.data;
      await db().updateTable('user_subscriptions').set({ remaining_quota: 1 }).where('id', '=', granted.id).execute();
      // While one instance holds the lease the other does not run.
      expect(await servers[0]!.ctx.cache.acquireLease('job:subscription-periods', 'held-by-test', 1, 10_000)).toBe(true);
      expect(await runSubscriptionPeriods(servers[1]!.ctx, { now: granted.period_end + 1 })).toBeNull();
      await servers[0]!.ctx.cache.releaseLease('job:subscription-periods', 'held-by-test');
      const runs = await Promise.all(
        Array.from({ length: 6 }, (_, i) => runSubscriptionPeriods(servers[i % 2]!.ctx, { now: granted.period_end + 1 })),
      );
      expect(runs.reduce((total, run) => total + (run?.renewed ?? 0), 0)).toBe(1);
      const [row] = await db().selectFrom('user_subscriptions').selectAll().where('id', '=', granted.id).execute();
      expect(row).toMatchObject({ remaining_quota: 700, period_start: granted.period_end, period_end: granted.period_end + 86_400 });
    });
  },
);
