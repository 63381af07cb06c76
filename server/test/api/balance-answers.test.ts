import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * A provider's balance answer is outside input. One whose fields are missing or are not amounts (a
 * changed API, a proxy's own page, a hostile upstream) must fail the update with a clear message: it
 * is never read as a balance of 0 (which disables the channel), never stored as NaN, and never shows
 * the admin a JavaScript or database error.
 */

/** Answers that are JSON objects but no balance, for every provider's balance reader. */
const unreadable: string[] = [
  '{}',
  '{"data":null}',
  '{"data":"x"}',
  '{"data":[]}',
  '{"data":{}}',
  '{"data":{"total_credits":"abc","total_usage":1,"totalBalance":"abc","available_balance":"abc"}}',
  '{"data":{"total_credits":{},"total_usage":[],"totalBalance":{},"available_balance":[]}}',
  '{"data":{"total_credits":1e400,"total_usage":1,"totalBalance":"1e400","available_balance":1e400}}',
  '{"data":{"total_credits":true,"total_usage":null,"totalBalance":"NaN","available_balance":"Infinity"}}',
  '{"balance_infos":"x"}',
  '{"balance_infos":[null]}',
  '{"balance_infos":[]}',
  '{"balance_infos":[{"currency":"EUR","total_balance":"3"}]}',
  '{"balance_infos":[{"currency":"USD","total_balance":{}}]}',
  '{"balance_infos":[{"currency":"CNY","total_balance":"abc"}]}',
  '{"hard_limit_usd":"abc","total_usage":"x"}',
  '{"hard_limit_usd":1e400,"total_usage":1}',
  '{"hard_limit_usd":10}',
];

/** Every balance reader's honest answer, and what it reads as. */
const honest: Record<number, { body: unknown; balance: number }> = {
  1: { body: { hard_limit_usd: 10, total_usage: 250 }, balance: 7.5 },
  8: { body: { hard_limit_usd: 10, total_usage: 250 }, balance: 7.5 },
  20: { body: { data: { total_credits: 25.5, total_usage: 5.25 } }, balance: 20.25 },
  25: { body: { code: 0, data: { available_balance: 73, voucher_balance: 0, cash_balance: 73 }, status: true }, balance: 10 },
  40: { body: { code: 20000, data: { totalBalance: '12.34' } }, balance: 12.34 },
  43: { body: { is_available: true, balance_infos: [{ currency: 'CNY', total_balance: '73.00' }] }, balance: 10 },
};

/** A provider that answers every balance request of a channel with the body set for its key. */
async function startBalanceUpstream(): Promise<{ url: string; answers: Map<string, string>; close(): Promise<void> }> {
  const answers = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    request.resume();
    const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(answers.get(key) ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(storageKinds())('channel balance answers (%s)', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let upstream: Awaited<ReturnType<typeof startBalanceUpstream>>;

  const storedBalance = async (id: number) =>
    await server.ctx.storage.db.selectFrom('channels').select(['balance', 'status']).where('id', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = (await signedInClient(server, { username: 'admin', role: 10 })).client;
    upstream = await startBalanceUpstream();
  });
  afterAll(async () => {
    await upstream.close();
    await server.stop();
  });

  it('refuses an answer without a balance in it, and keeps the stored balance', async () => {
    for (const type of [1, 8, 20, 25, 40, 43]) {
      const key = `balance-${type}`;
      const id = await createRelayChannel(server.ctx, { type, key, baseURL: upstream.url, models: ['m'] });
      upstream.answers.set(key, JSON.stringify(honest[type]!.body));
      const read = await admin.get(`/api/channel/update_balance/${id}`);
      expect(read.body, `type ${type}`).toMatchObject({ success: true, balance: honest[type]!.balance });
      for (const body of unreadable) {
        upstream.answers.set(key, body);
        const res = await admin.get(`/api/channel/update_balance/${id}`);
        expect(res.status, `type ${type}: ${body}`).toBe(400);
        expect(res.body, `type ${type}: ${body}`).toMatchObject({ success: false, message: '查询余额失败：上游返回的余额格式无法识别' });
        expect((await storedBalance(id)).balance, `type ${type}: ${body}`).toBe(honest[type]!.balance);
      }
      upstream.answers.set(key, '[1]');
      expect((await admin.get(`/api/channel/update_balance/${id}`)).body.message).toBe('查询余额失败：上游返回的不是 JSON 对象');
      const english = await admin.get(`/api/channel/update_balance/${id}`, { headers: { 'accept-language': 'en' } });
      expect(english.body.message).toBe('Could not fetch the balance: The upstream did not answer with a JSON object');
    }
  });

  it('never disables a channel whose provider answers without a balance, and still disables one that has none left', async () => {
    await server.ctx.storage.db.updateTable('channels').set({ status: 2 }).execute();
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const garbled = await createRelayChannel(server.ctx, { type: 20, key: 'refresh-garbled', baseURL: upstream.url, models: ['m'] });
    const spent = await createRelayChannel(server.ctx, { type: 20, key: 'refresh-spent', baseURL: upstream.url, models: ['m'] });
    upstream.answers.set('refresh-garbled', '{"data":{"credits":"plenty"}}');
    upstream.answers.set('refresh-spent', '{"data":{"total_credits":5,"total_usage":5}}');
    const res = await admin.get('/api/channel/update_balance');
    expect(res.body.success).toBe(true);
    expect(await storedBalance(garbled)).toMatchObject({ balance: 0, status: 1 });
    expect(await storedBalance(spent)).toMatchObject({ balance: 0, status: 3 });
  });
});
