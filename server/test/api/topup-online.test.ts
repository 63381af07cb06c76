import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import type { ApiClient } from '../helpers/api-client.js';

const epayKey = 'merchant-secret-key';
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** The gateway's side of the Epay contract, written out independently of the server's code. */
function gatewaySign(fields: Record<string, string>, key = epayKey): string {
  const names = Object.keys(fields)
    .filter((n) => n !== 'sign' && n !== 'sign_type' && fields[n] !== '')
    .sort();
  return md5(names.map((n) => `${n}=${fields[n]}`).join('&') + key);
}

describe.each(storageKinds())('online top-up on %s', (kind) => {
  let server: TestServer;
  let root: LoggedIn;
  let alice: LoggedIn;
  let vip: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    root = await setupRootAndLogin(server);
    alice = await createUserAndLogin(server, root.client, 'alice');
    ({ client: vip } = await signedInClient(server, { username: 'vipuser', group: 'vip' }));
  });
  afterAll(async () => {
    // Let pg's pool sockets finish closing before the helper force-drops the database.
    await server?.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server?.stop();
  });

  async function setOption(key: string, value: string) {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, res.text).toBe(200);
  }

  const quotaOf = async (userId: number) =>
    (await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota;

  async function notify(query: Record<string, string>) {
    const res = await fetch(`${server.url}/api/user/epay/notify?${new URLSearchParams(query)}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  }
  /** The notify as gateways that POST it send it: the fields in a form body. */
  async function notifyByPost(fields: Record<string, string>, init: { body?: string; type?: string } = {}) {
    const res = await fetch(`${server.url}/api/user/epay/notify`, {
      method: 'POST',
      headers: { 'content-type': init.type ?? 'application/x-www-form-urlencoded' },
      body: init.body ?? new URLSearchParams(fields).toString(),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  it('says online top-up is off until PayAddress, EpayId and EpayKey are all set', async () => {
    for (const path of ['/api/user/amount', '/api/user/pay']) {
      const res = await alice.client.post(path, { amount: 10, top_up_code: '', payment_method: 'zfb' });
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual({ success: false, message: '管理员未开启在线充值！', data: null });
    }
    await setOption('PayAddress', 'https://pay.example.com/');
    await setOption('EpayId', '1001');
    const partial = await alice.client.post('/api/user/amount', { amount: 10 });
    expect(partial.body.message).toBe('管理员未开启在线充值！');
    expect(await notify({ out_trade_no: 'x', trade_status: 'TRADE_SUCCESS', sign: 'x' })).toMatchObject({ text: 'fail' });
    await setOption('EpayKey', epayKey);
    await setOption('ServerAddress', 'https://gate.example.com/');
    await setOption('MinTopUp', '2');
    await setOption('TopupGroupRatio', JSON.stringify({ default: 1, vip: 0.5 }));
  });

  it('requires a session for amount and pay', async () => {
    for (const path of ['/api/user/amount', '/api/user/pay']) {
      expect((await server.client().post(path, { amount: 10, payment_method: 'zfb' })).status).toBe(401);
    }
  });

  it('quotes amount × Price × TopupGroupRatio with two decimals', async () => {
    const res = await alice.client.post('/api/user/amount', { amount: 10, top_up_code: '' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'success', data: '73.00' });
    const discounted = await vip.post('/api/user/amount', { amount: 3 });
    expect(discounted.body.data).toBe('10.95');
    await setOption('Price', '1.005');
    expect((await alice.client.post('/api/user/amount', { amount: 2 })).body.data).toBe((2 * 1.005).toFixed(2));
    await setOption('Price', '7.3');
  });

  it('rejects amounts below MinTopUp and malformed input', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/api/user/amount', { amount: 1 }, '充值数量不能小于 2'],
      ['/api/user/pay', { amount: 1, payment_method: 'wx' }, '充值数量不能小于 2'],
      ['/api/user/amount', { amount: 0 }, 'amount: 充值数量必须是正整数'],
      ['/api/user/amount', { amount: 2.5 }, 'amount: 充值数量必须是正整数'],
      ['/api/user/amount', { amount: '10' }, 'amount: 充值数量必须是正整数'],
      ['/api/user/amount', {}, 'amount: 充值数量必须是正整数'],
      ['/api/user/pay', { amount: 10, payment_method: 'card' }, 'payment_method: 支付方式必须是 zfb 或 wx'],
      ['/api/user/pay', { amount: 10 }, 'payment_method: 支付方式必须是 zfb 或 wx'],
    ];
    for (const [path, body, message] of cases) {
      const res = await alice.client.post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body).toEqual({ success: false, message, data: null });
    }
    expect((await alice.client.post('/api/user/pay', undefined, { raw: '{"amount":' })).status).toBe(400);
    const orders = await server.ctx.storage.db.selectFrom('top_ups').selectAll().execute();
    expect(orders).toHaveLength(0);
  });

  it('creates a pending order and returns a correctly signed Epay form', async () => {
    const res = await alice.client.post('/api/user/pay', { amount: 10, top_up_code: '', payment_method: 'zfb' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('success');
    const { url, data } = res.body.data;
    expect(url).toBe('https://pay.example.com/submit.php');
    expect(data).toMatchObject({
      pid: '1001',
      type: 'alipay',
      notify_url: 'https://gate.example.com/api/user/epay/notify',
      return_url: 'https://gate.example.com/log',
      name: 'TUC10',
      money: '73.00',
      sign_type: 'MD5',
    });
    const expected = md5(
      `money=73.00&name=TUC10&notify_url=https://gate.example.com/api/user/epay/notify&out_trade_no=${data.out_trade_no}` +
        `&pid=1001&return_url=https://gate.example.com/log&type=alipay${epayKey}`,
    );
    expect(data.sign).toBe(expected);
    const order = await server.ctx.storage.db
      .selectFrom('top_ups')
      .selectAll()
      .where('trade_no', '=', data.out_trade_no)
      .executeTakeFirstOrThrow();
    expect(order).toMatchObject({
      user_id: alice.userId,
      amount: 10,
      money: 73,
      payment_method: 'zfb',
      status: 'pending',
      complete_time: 0,
    });

    const wx = await vip.post('/api/user/pay', { amount: 4, payment_method: 'wx' });
    expect(wx.body.data.data).toMatchObject({ type: 'wxpay', money: '14.60' });
    expect(wx.body.data.data.out_trade_no).not.toBe(data.out_trade_no);
  });

  it('refuses a pay order while ServerAddress is empty: its return and notify URLs have no other base', async () => {
    const before = (await server.ctx.storage.db.selectFrom('top_ups').select('id').execute()).length;
    await setOption('ServerAddress', '');
    try {
      const res = await alice.client.post(
        '/api/user/pay',
        { amount: 10, payment_method: 'zfb' },
        { headers: { host: 'evil.example:8443' } },
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, message: '管理员未设置服务器地址，无法发起在线充值', data: null });
      expect((await server.ctx.storage.db.selectFrom('top_ups').select('id').execute()).length).toBe(before);
    } finally {
      await setOption('ServerAddress', 'https://gate.example.com/');
    }
    await setOption('CustomCallbackAddress', 'https://callback.example.com/');
    try {
      const res = await alice.client.post(
        '/api/user/pay',
        { amount: 10, payment_method: 'zfb' },
        { headers: { host: 'evil.example:8443' } },
      );
      expect(res.body.data.data).toMatchObject({
        notify_url: 'https://callback.example.com/api/user/epay/notify',
        return_url: 'https://gate.example.com/log',
      });
    } finally {
      await setOption('CustomCallbackAddress', '');
    }
  });

  async function newOrder(amount: number) {
    const res = await alice.client.post('/api/user/pay', { amount, payment_method: 'zfb' });
    expect(res.status, res.text).toBe(200);
    return res.body.data.data as Record<string, string>;
  }

  function callbackFor(order: Record<string, string>, overrides: Record<string, string> = {}, key = epayKey) {
    const fields: Record<string, string> = {
      pid: '1001',
      trade_no: `GW${order.out_trade_no}`,
      out_trade_no: order.out_trade_no!,
      type: order.type!,
      name: order.name!,
      money: order.money!,
      trade_status: 'TRADE_SUCCESS',
      ...overrides,
    };
    return { ...fields, sign: gatewaySign(fields, key), sign_type: 'MD5' };
  }

  it('refuses callbacks with a bad signature, a wrong amount or an unknown order', async () => {
    const order = await newOrder(5);
    const before = await quotaOf(alice.userId);
    const good = callbackFor(order);
    const attempts = [
      { ...good, sign: 'f'.repeat(32) },
      { ...good, money: '0.01' },
      callbackFor(order, {}, 'wrong-key'),
      { ...good, sign: '' },
      callbackFor(order, { money: '0.01' }),
      callbackFor(order, { out_trade_no: 'USR0NOunknown' }),
      callbackFor(order, { pid: '9999' }),
    ];
    for (const query of attempts) {
      const res = await notify(query);
      expect(res, JSON.stringify(query)).toMatchObject({ status: 200, text: 'fail' });
    }
    const waiting = await notify(callbackFor(order, { trade_status: 'WAIT_BUYER_PAY' }));
    expect(waiting.text).toBe('success');
    expect(await quotaOf(alice.userId)).toBe(before);
    const row = await server.ctx.storage.db
      .selectFrom('top_ups')
      .select('status')
      .where('trade_no', '=', order.out_trade_no!)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('pending');
  });

  it('credits a paid order exactly once, however often and concurrently the gateway calls back', async () => {
    const order = await newOrder(3);
    const before = await quotaOf(alice.userId);
    const callback = callbackFor(order);
    const first = await notify(callback);
    expect(first.status).toBe(200);
    expect(first.type).toMatch(/^text\/plain/);
    expect(first.text).toBe('success');
    const replies = await Promise.all(Array.from({ length: 20 }, () => notify(callback)));
    expect(replies.map((r) => r.text)).toEqual(Array(20).fill('success'));
    for (let i = 0; i < 3; i++) expect((await notify(callback)).text).toBe('success');

    expect(await quotaOf(alice.userId)).toBe(before + 3 * 500000);
    const row = await server.ctx.storage.db
      .selectFrom('top_ups')
      .selectAll()
      .where('trade_no', '=', order.out_trade_no!)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('success');
    expect(row.complete_time).toBeGreaterThan(0);
    const logs = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('type', '=', 1)
      .where('content', 'like', `%${order.out_trade_no}`)
      .execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ user_id: alice.userId, username: 'alice', quota: 1500000 });
    expect(logs[0]!.content).toContain('支付金额：21.90');
  });

  it('credits concurrent first deliveries of one order once', async () => {
    const order = await newOrder(2);
    const before = await quotaOf(alice.userId);
    const replies = await Promise.all(Array.from({ length: 20 }, () => notify(callbackFor(order))));
    expect(replies.every((r) => r.text === 'success')).toBe(true);
    expect(await quotaOf(alice.userId)).toBe(before + 2 * 500000);
  });

  it('takes the notify as a form POST too, crediting once, and refuses what is not a signed form', async () => {
    const order = await newOrder(4);
    const before = await quotaOf(alice.userId);
    const callback = callbackFor(order);
    expect(await notifyByPost({ ...callback, sign: 'f'.repeat(32) })).toMatchObject({ status: 200, text: 'fail' });
    // The fields must be in the body: a POST with them only in the query is not a signed notify.
    const queryOnly = await fetch(`${server.url}/api/user/epay/notify?${new URLSearchParams(callback)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(await queryOnly.text()).toBe('fail');
    expect(await quotaOf(alice.userId)).toBe(before);

    const first = await notifyByPost(callback);
    expect(first).toMatchObject({ status: 200, text: 'success' });
    expect(first.type).toMatch(/^text\/plain/);
    const replies = await Promise.all(Array.from({ length: 10 }, () => notifyByPost(callback)));
    expect(replies.map((r) => r.text)).toEqual(Array(10).fill('success'));
    expect((await notify(callback)).text).toBe('success');
    expect(await quotaOf(alice.userId)).toBe(before + 4 * 500000);
    const row = await server.ctx.storage.db
      .selectFrom('top_ups')
      .select('status')
      .where('trade_no', '=', order.out_trade_no!)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('success');

    // A repeated field counts once, by its first value, as the gateway's own form reader would.
    const other = await newOrder(2);
    const signed = callbackFor(other);
    const body = `${new URLSearchParams(signed)}&money=9999.00&trade_status=WAIT_BUYER_PAY`;
    expect((await notifyByPost({}, { body })).text).toBe('success');
    expect(await quotaOf(alice.userId)).toBe(before + 6 * 500000);

    // Other bodies get a clear 4xx, never a crash: plain text, an unknown type, an oversized form.
    expect((await notifyByPost(callback, { type: 'text/plain', body: 'pid=1001' })).status).toBe(400);
    expect((await notifyByPost(callback, { type: 'application/xml', body: '<pid>1001</pid>' })).status).toBe(415);
    expect((await notifyByPost({}, { body: `pad=${'x'.repeat(70 * 1024)}` })).status).toBe(413);
  });

  it('accepts form bodies on the Epay notify only', async () => {
    const res = await fetch(`${server.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=x',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ success: false });
  });
});
