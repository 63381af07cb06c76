import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { insertReturningId } from '../../src/db/index.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * Users see only their own data. Every route the app registers (read from Fastify's onRoute hook,
 * so a new route is swept without touching this file) is called by one user, Alice, with another
 * user's ids everywhere an id goes: path parameters, query filters and JSON bodies, through her
 * session and through her API key. Bob's rows carry marker strings; no answer to Alice may contain
 * one, and no call of hers may change or remove a row of Bob's. On every database.
 */

interface SweptRoute {
  method: string;
  url: string;
}
interface Probe {
  method: string;
  url: string;
  payload?: string;
  headers: Record<string, string>;
}

/** Strings only Bob's rows hold: an answer to Alice that contains one has shown her Bob's data. */
const markers = {
  username: 'bobmarker',
  tokenName: 'bob-token-marker',
  logContent: 'bob-log-marker',
  prompt: 'bob-prompt-marker',
  tradeNo: 'bob-trade-marker',
  taskData: 'bob-task-marker',
  hookSecret: 'bob-hook-secret-marker',
  responseItem: 'bob-response-marker',
};

/** Alice's own session ends in these: they run last. */
const endsSession = (route: SweptRoute) =>
  route.url === '/api/user/logout' || (route.method === 'DELETE' && route.url === '/api/user/self');

describe.each(storageKinds())('ownership sweep on %s', (kind) => {
  let server: TestServer;
  const routes: SweptRoute[] = [];
  let root: LoggedIn;
  let alice: LoggedIn;
  let aliceKey = '';
  let bob: LoggedIn;
  let bobKey = '';
  /** Bob's ids, each as it appears in a route (numbers and the gateway's task ids). */
  const bobIds: Record<string, string | number> = {};

  const db = () => server.ctx.storage.db;

  /** Everything of Bob's that a call of Alice's could change or remove, as one comparable value. */
  async function bobsRows() {
    const userId = bob.userId;
    const [user, tokens, logs, tasks, drawings, topUps, responses] = await Promise.all([
      db()
        .selectFrom('users')
        .select(['username', 'quota', 'status', 'role', 'group', 'setting', 'deleted_at', 'display_name', 'email'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow(),
      db()
        .selectFrom('tokens')
        .select(['id', 'key', 'name', 'status', 'remain_quota', 'unlimited_quota', 'expired_time', 'deleted_at'])
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute(),
      db().selectFrom('logs').select(['id', 'content']).where('user_id', '=', userId).where('type', '!=', 4).orderBy('id').execute(),
      db().selectFrom('tasks').select(['task_id', 'status', 'data']).where('user_id', '=', userId).orderBy('id').execute(),
      db().selectFrom('midjourneys').select(['mj_id', 'status', 'prompt']).where('user_id', '=', userId).orderBy('id').execute(),
      db().selectFrom('top_ups').select(['trade_no', 'status', 'amount']).where('user_id', '=', userId).orderBy('id').execute(),
      db().selectFrom('stored_responses').select(['id', 'items']).where('user_id', '=', userId).orderBy('id').execute(),
    ]);
    return JSON.parse(
      JSON.stringify({ user, tokens, logs, tasks, drawings, topUps, responses }, (_key, value: unknown) =>
        typeof value === 'bigint' ? Number(value) : value,
      ),
    );
  }

  beforeAll(async () => {
    server = await startTestServer({
      kind,
      env: { LOG_LEVEL: 'warn' },
      onRoute: (route: RouteOptions) => {
        for (const method of [route.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, url: route.url });
      },
    });
    root = await setupRootAndLogin(server);
    alice = await createUserAndLogin(server, root.client, 'alicesweep');
    bob = await createUserAndLogin(server, root.client, markers.username);
    await server.ctx.options.set('DrawingEnabled', 'true');
    await server.ctx.options.set('TaskEnabled', 'true');
    for (const [who, name] of [
      [alice, 'alice-token'],
      [bob, markers.tokenName],
    ] as const) {
      expect((await who.client.post('/api/token/', { name, remain_quota: 5000 })).status).toBe(200);
    }
    const bobToken = (await bob.client.get('/api/token/')).body.data.items[0] as { id: number; key: string };
    bobKey = bobToken.key;
    aliceKey = ((await alice.client.get('/api/token/')).body.data.items[0] as { key: string }).key;
    expect(
      (
        await bob.client.put('/api/user/setting', {
          notify_type: 'webhook',
          webhook_url: 'https://hooks.example.com/bob',
          webhook_secret: markers.hookSecret,
        })
      ).status,
    ).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    bobIds.user = bob.userId;
    bobIds.token = bobToken.id;
    bobIds.log = await insertReturningId(server.ctx.storage, 'logs', {
      user_id: bob.userId,
      created_at: now,
      type: 2,
      content: markers.logContent,
      username: markers.username,
      token_name: markers.tokenName,
      model_name: 'gpt-4o',
      quota: 7,
      token_id: bobToken.id,
    });
    bobIds.topUp = await insertReturningId(server.ctx.storage, 'top_ups', {
      user_id: bob.userId,
      amount: 5,
      money: 5,
      trade_no: markers.tradeNo,
      payment_method: 'alipay',
      create_time: now,
      status: 'pending',
    });
    bobIds.drawing = 'bobmj0001';
    await db()
      .insertInto('midjourneys')
      .values({
        user_id: bob.userId,
        action: 'IMAGINE',
        mj_id: 'bobmj0001',
        prompt: markers.prompt,
        status: 'SUCCESS',
        progress: '100%',
        submit_time: now * 1000,
        token_id: bobToken.id,
      })
      .execute();
    bobIds.task = 'bobsuno0001';
    await db()
      .insertInto('tasks')
      .values({
        created_at: now,
        updated_at: now,
        task_id: 'bobsuno0001',
        platform: 'suno',
        user_id: bob.userId,
        action: 'MUSIC',
        status: 'SUCCESS',
        data: JSON.stringify({ title: markers.taskData }),
        token_id: bobToken.id,
      })
      .execute();
    bobIds.response = 'resp_zz0001sweep';
    await db()
      .insertInto('stored_responses')
      .values({
        id: 'resp_zz0001sweep',
        user_id: bob.userId,
        status: 1,
        items: JSON.stringify([{ role: 'user', content: markers.responseItem }]),
        created_at: now,
        expires_at: now + 3600,
      })
      .execute();
  });
  afterAll(async () => server?.stop());

  /** Sends the probes (32 at a time) and names every answer that shows one of Bob's markers or his key. */
  async function sweep(probes: Probe[]): Promise<string[]> {
    const leaks: string[] = [];
    for (let start = 0; start < probes.length; start += 32) {
      await Promise.all(
        probes.slice(start, start + 32).map(async (probe) => {
          const answer = await server.app.inject({
            method: probe.method as 'GET',
            url: probe.url,
            payload: probe.payload,
            headers: probe.headers,
          });
          const shown = Object.values(markers).filter((marker) => answer.body.includes(marker));
          if (answer.body.includes(bobKey)) shown.push("bob's token key");
          if (shown.length > 0)
            leaks.push(
              `${probe.method} ${probe.url.split('?')[0]} ${probe.payload?.slice(0, 80) ?? ''}: ${answer.statusCode} shows ${shown.join(', ')}`,
            );
        }),
      );
    }
    return leaks;
  }

  it("never shows Alice a row of Bob's, and never lets her change one", async () => {
    expect(routes.length).toBeGreaterThan(50);
    const before = await bobsRows();
    const ordered = [...routes.filter((route) => !endsSession(route)), ...routes.filter(endsSession)];
    const idValues = [...new Set(Object.values(bobIds).map(String))];
    const numericIds = [bobIds.user, bobIds.token, bobIds.log, bobIds.topUp];
    const session = { cookie: alice.client.cookie ?? '', 'new-api-user': String(alice.userId) };
    const json = { 'content-type': 'application/json' };
    const query = `user_id=${bobIds.user}&token_id=${bobIds.token}&id=${bobIds.token}&username=${markers.username}&token_name=${markers.tokenName}&keyword=bob&trade_no=${markers.tradeNo}&mj_id=bobmj0001&task_id=bobsuno0001`;
    const bodies = [
      ...numericIds.map((id) => ({
        id,
        user_id: bobIds.user,
        token_id: bobIds.token,
        ids: [id],
        status: 2,
        name: 'alice-renamed',
        remain_quota: 1,
        quota: 1,
      })),
      {
        ids: ['bobmj0001', 'bobsuno0001'],
        taskId: 'bobmj0001',
        task_id: 'bobsuno0001',
        previous_response_id: 'resp_zz0001sweep',
        model: 'gpt-4o',
        input: 'hi',
        trade_no: markers.tradeNo,
        username: markers.username,
        key: bobKey,
      },
    ];
    const probes: Probe[] = [];
    for (const route of ordered) {
      const hasParams = /:[A-Za-z_]+|\*$/.test(route.url);
      const urls = hasParams ? idValues.map((id) => route.url.replace(/:[A-Za-z_]+/g, id).replace(/\*$/, id)) : [route.url];
      for (const headers of [session, { authorization: `Bearer sk-${aliceKey}` }]) {
        for (const url of urls) {
          probes.push({ method: route.method, url: `${url}?${query}`, headers });
          if (route.method === 'GET' || route.method === 'DELETE') continue;
          for (const body of bodies)
            probes.push({ method: route.method, url, payload: JSON.stringify(body), headers: { ...headers, ...json } });
        }
      }
    }
    const leaks = await sweep(probes);
    const sent = probes.length;
    expect(sent).toBeGreaterThan(1000);
    expect(leaks.slice(0, 40), `${leaks.length} answers of ${sent} showed Bob's data`).toEqual([]);
    expect(await bobsRows()).toEqual(before);
    // The far side: the same reads as the root find Bob's rows where an admin may see them, so the
    // probes do reach his data; and Bob himself still sees his own rows.
    const rootSession = { cookie: root.client.cookie ?? '', 'new-api-user': String(root.userId) };
    const asRoot = await sweep(
      probes.filter((probe) => probe.method === 'GET' && 'cookie' in probe.headers).map((probe) => ({ ...probe, headers: rootSession })),
    );
    expect(asRoot.some((leak) => leak.startsWith(`GET /api/user/${bobIds.user} `) && leak.includes(markers.username))).toBe(true);
    expect(asRoot.some((leak) => leak.startsWith('GET /api/log/ ') && leak.includes(markers.logContent))).toBe(true);
    const bobTokens = await bob.client.get('/api/token/');
    expect(JSON.stringify(bobTokens.body)).toContain(markers.tokenName);
    expect(JSON.stringify((await bob.client.get('/api/log/self')).body)).toContain(markers.logContent);
  }, 600_000);
});
