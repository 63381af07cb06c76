import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowSeconds } from '../../src/db/index.js';
import { failAndRefund } from '../../src/relay/ledger/task-ledger.js';
import { startMjUpstream, pngBytes, type MjUpstream } from '../helpers/mj-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const quotaPerUnit = 500_000;
const prices = {
  mj_imagine: 0.1,
  mj_upscale: 0.05,
  mj_variation: 0.04,
  mj_reroll: 0.04,
  mj_modal: 0.1,
  mj_upload: 0.01,
  mj_describe: 0.05,
  mj_shorten: 0.02,
};
const quotaOf = (model: keyof typeof prices) => prices[model] * quotaPerUnit;
const redisUrl = process.env.TEST_REDIS_URL;

/**
 * Midjourney through ModelGate to local Midjourney-Proxy servers: submits billed durably per action,
 * follow-ups on the channel that drew the image, polled to the end, failures refunded once, on
 * every database; on PostgreSQL and MySQL with a second instance (sharing Redis when there is one).
 */
describe.each(storageKinds())('Midjourney task relay on %s', (kind) => {
  let server: TestServer;
  let second: TestServer | null = null;
  let mjA: MjUpstream;
  let mjB: MjUpstream;
  let channelA: number;
  let channelB: number;
  let user: { id: number; tokenId: number; key: string };
  let other: { id: number; tokenId: number; key: string };

  const call = (
    key: string,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = { authorization: `Bearer sk-${key}` },
    base = server,
  ) =>
    fetch(`${base.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const db = () => server.ctx.storage.db;
  const row = (mjId: string) => db().selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).executeTakeFirstOrThrow();
  const pollAll = async (rounds: number) => {
    for (let round = 0; round < rounds; round += 1) await server.relay.tasks.pollOnce();
  };

  const ledger = async (who: { id: number; tokenId: number }) => {
    const userRow = await db().selectFrom('users').select(['quota', 'used_quota']).where('id', '=', who.id).executeTakeFirstOrThrow();
    const tokenRow = await db()
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', who.tokenId)
      .executeTakeFirstOrThrow();
    const channels = await db().selectFrom('channels').select(['id', 'used_quota']).where('id', 'in', [channelA, channelB]).execute();
    const logs = await db()
      .selectFrom('logs')
      .select(['type', 'quota'])
      .where('user_id', '=', who.id)
      .where('type', 'in', [2, 6])
      .execute();
    return {
      quota: Number(userRow.quota),
      used: Number(userRow.used_quota),
      tokenRemain: Number(tokenRow.remain_quota),
      tokenUsed: Number(tokenRow.used_quota),
      channelsUsed: channels.reduce((sum, channel) => sum + Number(channel.used_quota), 0),
      consumed: logs.filter((log) => log.type === 2).reduce((sum, log) => sum + Number(log.quota), 0),
      refunded: logs.filter((log) => log.type === 6).reduce((sum, log) => sum + Number(log.quota), 0),
    };
  };
  const newCaller = async (quota: number) => {
    const id = await createRelayUser(server.ctx, { quota });
    const token = await createRelayToken(server.ctx, id, { remainQuota: quota });
    return { id, tokenId: token.id, key: token.key };
  };

  beforeAll(async () => {
    mjA = await startMjUpstream('mj-a');
    mjB = await startMjUpstream('mj-b');
    const shared: Record<string, string> =
      kind !== 'sqlite' && redisUrl
        ? { REDIS_CONN_STRING: redisUrl, REDIS_KEY_PREFIX: `mg-mj-${Math.random().toString(36).slice(2, 8)}:` }
        : {};
    // Polling is driven by the tests (pollOnce), not by the interval.
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0', ...shared } });
    if (kind !== 'sqlite') second = await startTestServer({ database: server.database, env: { TASK_POLL_INTERVAL: '0', ...shared } });
    await setOption(server.ctx, 'DrawingEnabled', 'true');
    await setOption(server.ctx, 'RetryTimes', '2');
    await setOption(server.ctx, 'ServerAddress', server.url);
    await setOption(server.ctx, 'ModelPrice', JSON.stringify(prices));
    const models = [
      'mj_imagine',
      'mj_upscale',
      'mj_variation',
      'mj_reroll',
      'mj_modal',
      'mj_upload',
      'mj_describe',
      'mj_shorten',
      'mj_blend',
    ];
    // A is preferred (priority); B takes what A cannot.
    channelA = await createRelayChannel(server.ctx, { type: 5, key: 'mj-a', baseURL: mjA.url, models, priority: 10 });
    channelB = await createRelayChannel(server.ctx, { type: 5, key: 'mj-b', baseURL: mjB.url, models, priority: 0 });
    user = await newCaller(5_000_000);
    other = await newCaller(5_000_000);
  });
  afterAll(async () => {
    await second?.stop();
    await server?.stop();
    await mjA?.close();
    await mjB?.close();
  });

  it('submits an imagine: the gateway id, the upstream request, and the price taken in the database at once', async () => {
    const before = await ledger(user);
    mjA.nextScript([{ status: 'NOT_START' }, { status: 'SUBMITTED' }, { status: 'IN_PROGRESS', progress: '46%' }, { status: 'SUCCESS' }]);
    const submitted = await call(user.key, 'POST', '/mj/submit/imagine', {
      prompt: 'a gateway at dawn --relax',
      notifyHook: 'http://127.0.0.1:1/hook',
      accountFilter: { channelId: 'x' },
      state: 'mine',
    });
    expect(submitted).toMatchObject({
      status: 200,
      body: { code: 1, description: '提交成功', result: expect.stringMatching(/^\d{19}$/), properties: { discordInstanceId: 'inst-1' } },
    });
    // The upstream got the prompt as given, and neither the hook (the gateway calls it) nor the account filter (off).
    expect(mjA.submits.at(-1)).toEqual({
      path: '/mj/submit/imagine',
      secret: 'mj-a',
      body: { prompt: 'a gateway at dawn --relax', state: 'mine' },
    });
    const after = await ledger(user);
    expect(after.quota).toBe(before.quota - quotaOf('mj_imagine'));
    expect(after.tokenRemain).toBe(before.tokenRemain - quotaOf('mj_imagine'));
    expect(after.channelsUsed).toBe(before.channelsUsed + quotaOf('mj_imagine'));
    expect(after.consumed).toBe(before.consumed + quotaOf('mj_imagine'));
    const task = await row(submitted.body.result);
    expect(task).toMatchObject({
      status: 'SUBMITTED',
      action: 'IMAGINE',
      code: 1,
      user_id: user.id,
      token_id: user.tokenId,
      channel_id: channelA,
      prompt: 'a gateway at dawn --relax',
      quota: quotaOf('mj_imagine'),
    });
    expect(task.upstream_id).toMatch(/^17000000000/);
    expect(submitted.body.result).not.toBe(task.upstream_id);

    // Polled step by step to SUCCESS; the client fetches it in Midjourney-Proxy's shape.
    await pollAll(3);
    expect(await call(user.key, 'GET', `/mj/task/${submitted.body.result}/fetch`)).toMatchObject({
      status: 200,
      body: { id: submitted.body.result, status: 'IN_PROGRESS', progress: '46%' },
    });
    await pollAll(1);
    const fetched = await call(user.key, 'GET', `/mj/task/${submitted.body.result}/fetch`);
    expect(fetched.body).toMatchObject({
      id: submitted.body.result,
      action: 'IMAGINE',
      status: 'SUCCESS',
      progress: '100%',
      promptEn: 'a gateway at dawn --relax (en)',
      failReason: '',
      // MjForwardUrlEnabled (on by default): the image is served by the gateway.
      imageUrl: `${server.url}/mj/image/${submitted.body.result}`,
      buttons: [{ label: 'U1' }],
      properties: { finalPrompt: 'a gateway at dawn --relax' },
    });
    expect(fetched.body.finishTime).toBeGreaterThan(0);
    const image = await fetch(fetched.body.imageUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(pngBytes);
    await setOption(server.ctx, 'MjForwardUrlEnabled', 'false');
    expect((await call(user.key, 'GET', `/mj/task/${submitted.body.result}/fetch`)).body.imageUrl).toBe(
      `${mjA.url}/images/${task.upstream_id}.png`,
    );
    await setOption(server.ctx, 'MjForwardUrlEnabled', 'true');

    // Only the owner sees it; list-by-condition answers the caller's own tasks among the ids.
    expect(await call(other.key, 'GET', `/mj/task/${submitted.body.result}/fetch`)).toMatchObject({
      status: 404,
      body: { code: 3, description: 'Task not found' },
    });
    expect(
      (await call(user.key, 'POST', '/mj/task/list-by-condition', { ids: [submitted.body.result, '123'] })).body.map(
        (item: any) => item.id,
      ),
    ).toEqual([submitted.body.result]);
    expect((await call(other.key, 'POST', '/mj/task/list-by-condition', { ids: [submitted.body.result] })).body).toEqual([]);
    // The image seed is asked of the channel, for the upstream's id.
    expect(await call(user.key, 'GET', `/mj/task/${submitted.body.result}/image-seed`)).toMatchObject({
      status: 200,
      body: { code: 1, result: '1234567' },
    });
    expect(mjA.seeds.at(-1)).toBe(task.upstream_id);
    // A finished task is not polled again, and was billed once.
    const polls = mjA.listed.get(task.upstream_id);
    await pollAll(1);
    expect(mjA.listed.get(task.upstream_id)).toBe(polls);
    expect((await ledger(user)).consumed).toBe(after.consumed);
  });

  it('authenticates with mj-api-secret, and a mode prefix sets the prompt speed flag', async () => {
    const secretOnly = { 'mj-api-secret': `sk-${user.key}` };
    const viaSecret = await call(user.key, 'POST', '/mj/submit/shorten', { prompt: 'a very long prompt --fast' }, secretOnly);
    expect(viaSecret).toMatchObject({ status: 200, body: { code: 1 } });
    const proxyStyle = await call(
      user.key,
      'POST',
      '/mj-fast/mj/submit/imagine',
      { prompt: 'cat --relax --turbo' },
      { ...secretOnly, authorization: 'midjourney-proxy' },
    );
    expect(proxyStyle.body.code).toBe(1);
    expect(mjA.submits.at(-1)).toMatchObject({ path: '/mj/submit/imagine', body: { prompt: 'cat --fast' } });
    await call(user.key, 'POST', '/mj-relax/mj/submit/imagine', { prompt: 'dog' });
    expect(mjA.submits.at(-1)!.body.prompt).toBe('dog --relax');
    // MjModeClearEnabled without a prefix: the flags are removed.
    await setOption(server.ctx, 'MjModeClearEnabled', 'true');
    await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'owl --turbo' });
    expect(mjA.submits.at(-1)!.body.prompt).toBe('owl');
    await setOption(server.ctx, 'MjModeClearEnabled', 'false');
    // MjAccountFilterEnabled: the Plus account filter is passed on.
    await setOption(server.ctx, 'MjAccountFilterEnabled', 'true');
    await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'fox', accountFilter: { instanceId: 'inst-2', modes: ['FAST'] } });
    expect(mjA.submits.at(-1)!.body).toEqual({ prompt: 'fox', accountFilter: { instanceId: 'inst-2', modes: ['FAST'] } });
    await setOption(server.ctx, 'MjAccountFilterEnabled', 'false');
    // The fetch routes are served under a prefix too.
    expect((await call(user.key, 'GET', `/mj-fast/mj/task/${proxyStyle.body.result}/fetch`)).body.id).toBe(proxyStyle.body.result);
    expect((await fetch(`${server.url}/mj/task/${proxyStyle.body.result}/fetch`)).status).toBe(401);
    expect(
      (await call(user.key, 'GET', `/mj/task/${proxyStyle.body.result}/fetch`, undefined, { 'mj-api-secret': 'sk-wrong' })).status,
    ).toBe(401);
  });

  it('fails over on channel trouble before a task is accepted, and sends follow-ups to the channel that drew the image', async () => {
    // A answers "queue full" (23): B takes the task.
    mjA.answerSubmits(200, { code: 23, description: '队列已满，请稍后尝试' });
    mjB.nextScript([{ status: 'SUCCESS' }]);
    const imagine = await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'two channels' });
    expect(imagine.body.code).toBe(1);
    const original = await row(imagine.body.result);
    expect(original.channel_id).toBe(channelB);
    // Before SUCCESS, actions are refused (MjActionCheckSuccessEnabled, on by default), unbilled.
    const early = await call(user.key, 'POST', '/mj/submit/action', {
      taskId: imagine.body.result,
      customId: `MJ::JOB::upsample::1::${original.upstream_id}`,
    });
    expect(early).toMatchObject({ status: 400, body: { code: 4, description: expect.stringContaining('SUCCESS') } });
    // With MjActionCheckSuccessEnabled off, an action on an unfinished task is sent.
    await setOption(server.ctx, 'MjActionCheckSuccessEnabled', 'false');
    const unchecked = await call(user.key, 'POST', '/mj/submit/change', { taskId: imagine.body.result, action: 'UPSCALE', index: 3 });
    expect(unchecked.body.code).toBe(1);
    expect(mjB.submits.at(-1)).toMatchObject({ path: '/mj/submit/change', body: { taskId: original.upstream_id, index: 3 } });
    await setOption(server.ctx, 'MjActionCheckSuccessEnabled', 'true');
    await pollAll(1);
    const before = await ledger(user);
    const aSubmits = mjA.submits.length;
    const upscale = await call(user.key, 'POST', '/mj/submit/action', {
      taskId: imagine.body.result,
      customId: `MJ::JOB::upsample::1::${original.upstream_id}`,
    });
    expect(upscale).toMatchObject({ status: 200, body: { code: 1, result: expect.stringMatching(/^\d{19}$/) } });
    // B (not the preferred A) got it, with B's task id.
    expect(mjA.submits.length).toBe(aSubmits);
    expect(mjB.submits.at(-1)).toMatchObject({
      path: '/mj/submit/action',
      body: { taskId: original.upstream_id, customId: `MJ::JOB::upsample::1::${original.upstream_id}` },
    });
    expect(await row(upscale.body.result)).toMatchObject({ action: 'UPSCALE', channel_id: channelB, quota: quotaOf('mj_upscale') });
    // change and simple-change name the task the same way.
    const change = await call(user.key, 'POST', '/mj/submit/change', { taskId: imagine.body.result, action: 'VARIATION', index: 2 });
    expect(mjB.submits.at(-1)).toMatchObject({
      path: '/mj/submit/change',
      body: { taskId: original.upstream_id, action: 'VARIATION', index: 2 },
    });
    expect((await row(change.body.result)).action).toBe('VARIATION');
    const simple = await call(user.key, 'POST', '/mj/submit/simple-change', { content: `${imagine.body.result} R` });
    expect(mjB.submits.at(-1)).toMatchObject({ path: '/mj/submit/simple-change', body: { content: `${original.upstream_id} R` } });
    expect((await row(simple.body.result)).action).toBe('REROLL');
    const after = await ledger(user);
    expect(after.consumed - before.consumed).toBe(quotaOf('mj_upscale') + quotaOf('mj_variation') + quotaOf('mj_reroll'));
    // Another user cannot act on it; an unknown task is a 404.
    expect(await call(other.key, 'POST', '/mj/submit/change', { taskId: imagine.body.result, action: 'UPSCALE', index: 1 })).toMatchObject({
      status: 404,
      body: { code: 3 },
    });
    expect(await call(user.key, 'POST', '/mj/submit/action', { taskId: '999', customId: 'MJ::JOB::upsample::1::x' })).toMatchObject({
      status: 404,
      body: { code: 3 },
    });
    // An HTTP 5xx of A also fails over; the answer is B's.
    mjA.answerSubmits(500, { code: 9, description: 'internal' });
    expect((await call(user.key, 'POST', '/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' })).body.code).toBe(1);
    expect(mjB.submits.at(-1)!.path).toBe('/mj/submit/describe');
    // Submits follow the chat relay's retry policy: with 5xx left out of RetryStatusCodes, A's 500 is the answer, unbilled.
    await setOption(server.ctx, 'RetryStatusCodes', '429');
    mjA.answerSubmits(500, { code: 9, description: 'internal' });
    const bSubmits = mjB.submits.length;
    const beforeRefusal = await ledger(user);
    const refused = await call(user.key, 'POST', '/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' });
    expect(refused.body.code).not.toBe(1);
    expect(mjB.submits.length).toBe(bSubmits);
    expect((await ledger(user)).consumed).toBe(beforeRefusal.consumed);
    await setOption(server.ctx, 'RetryStatusCodes', '401,403,408,429,500-503,505-523,525-599');
  });

  it('passes a refusal through unbilled and untried elsewhere; uploads are answered at once and kept as finished', async () => {
    const before = await ledger(user);
    const bSubmits = mjB.submits.length;
    mjA.answerSubmits(200, { code: 24, description: '可能包含敏感词', properties: { promptEn: 'bad', bannedWord: 'bad' } });
    const refused = await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'bad' });
    expect(refused).toEqual({
      status: 400,
      body: { code: 24, description: '可能包含敏感词', result: null, properties: { promptEn: 'bad', bannedWord: 'bad' } },
    });
    expect(mjB.submits.length).toBe(bSubmits);
    expect((await ledger(user)).consumed).toBe(before.consumed);

    // "Already exists" (21) naming a task the caller has: answered with that task, not billed twice.
    const first = await call(user.key, 'POST', '/mj/submit/describe', { base64: 'data:image/png;base64,BBBB' });
    const firstRow = await row(first.body.result);
    mjA.answerSubmits(200, { code: 21, description: '任务已存在', result: firstRow.upstream_id, properties: {} });
    const again = await call(user.key, 'POST', '/mj/submit/describe', { base64: 'data:image/png;base64,BBBB' });
    expect(again).toMatchObject({ status: 200, body: { code: 21, result: first.body.result } });
    expect((await ledger(user)).consumed).toBe(before.consumed + quotaOf('mj_describe'));
    expect((await db().selectFrom('midjourneys').select('id').where('upstream_id', '=', firstRow.upstream_id).execute()).length).toBe(1);

    const upload = await call(user.key, 'POST', '/mj/submit/upload-discord-images', { base64Array: ['data:image/png;base64,AAAA'] });
    expect(upload).toMatchObject({ status: 200, body: { code: 1, result: [expect.stringContaining('/images/upload-')] } });
    const kept = await db()
      .selectFrom('midjourneys')
      .selectAll()
      .where('user_id', '=', user.id)
      .where('action', '=', 'UPLOAD')
      .executeTakeFirstOrThrow();
    expect(kept).toMatchObject({ status: 'SUCCESS', progress: '100%', quota: quotaOf('mj_upload') });
    expect((await ledger(user)).consumed).toBe(before.consumed + quotaOf('mj_describe') + quotaOf('mj_upload'));
  });

  it('refunds a failed task exactly once, and calls the notify hook with the gateway task when it changes', async () => {
    const hooks: any[] = [];
    const hookServer = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        hooks.push(JSON.parse(Buffer.concat(parts).toString('utf8')));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
    await setOption(server.ctx, 'MjNotifyEnabled', 'true');
    try {
      // The SSRF protection (on by default) never calls a hook on an unlisted port, nor on a name that resolves to a private address.
      for (const ports of [null, '["1-65535"]']) {
        if (ports) await setOption(server.ctx, 'fetch_setting.allowed_ports', ports);
        mjA.nextScript([
          { status: 'IN_PROGRESS', progress: '50%' },
          { status: 'SUCCESS', progress: '100%' },
        ]);
        const quiet = await call(user.key, 'POST', '/mj/submit/imagine', {
          prompt: 'quietly',
          notifyHook: hook.replace('127.0.0.1', 'localhost'),
        });
        await pollAll(2);
        expect(await row(quiet.body.result)).toMatchObject({ status: 'SUCCESS' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(hooks).toEqual([]);
      }
      // Allowed by the root: the hooks below are called.
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
      const before = await ledger(user);
      mjA.nextScript([
        { status: 'IN_PROGRESS', progress: '10%' },
        { status: 'FAILURE', failReason: 'Banned prompt detected', progress: '10%' },
      ]);
      const submitted = await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'doomed', notifyHook: hook });
      expect((await row(submitted.body.result)).notify_hook).toBe(hook);
      await pollAll(2);
      await expect.poll(() => hooks.length).toBe(2);
      expect(hooks.map((task) => [task.id, task.status])).toEqual([
        [submitted.body.result, 'IN_PROGRESS'],
        [submitted.body.result, 'FAILURE'],
      ]);
      expect(await row(submitted.body.result)).toMatchObject({ status: 'FAILURE', fail_reason: 'Banned prompt detected', progress: '10%' });
      expect(await failAndRefund(server.ctx, server.relay, 'midjourneys', submitted.body.result, 'again')).toBe(false);
      const after = await ledger(user);
      expect(after.quota).toBe(before.quota);
      expect(after.tokenRemain).toBe(before.tokenRemain);
      expect(after.refunded).toBe(before.refunded + quotaOf('mj_imagine'));
      expect(after.used).toBe(after.consumed - after.refunded);
      const refundLog = await db()
        .selectFrom('logs')
        .select('content')
        .where('user_id', '=', user.id)
        .where('type', '=', 6)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(refundLog.content).toContain(submitted.body.result);
    } finally {
      await setOption(server.ctx, 'MjNotifyEnabled', 'false');
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'false');
      await setOption(server.ctx, 'fetch_setting.allowed_ports', '["80", "443", "8080", "8443"]');
      await new Promise<void>((resolve) => hookServer.close(() => resolve()));
    }
  });

  it('times a stuck task out once across instances, and a restarted instance finishes what the first accepted', async () => {
    const payer = await newCaller(1_000_000);
    const before = await ledger(payer);
    mjA.nextScript([{ status: 'IN_PROGRESS' }]);
    const stuck = await call(payer.key, 'POST', '/mj/submit/imagine', { prompt: 'slow' });
    const stuckRow = await row(stuck.body.result);
    // Two instances poll at once: the task is asked for once per round.
    const polls = mjA.listed.get(stuckRow.upstream_id) ?? 0;
    const peer = (second ?? server).relay.tasks;
    await Promise.all([server.relay.tasks.pollOnce(), ...(second ? [peer.pollOnce()] : [])]);
    expect(mjA.listed.get(stuckRow.upstream_id)).toBe(polls + 1);
    const late = nowSeconds() + server.ctx.config.taskTimeoutSeconds + 60;
    await Promise.all([server.relay.tasks.pollOnce(late), ...(second ? [peer.pollOnce(late)] : [])]);
    expect(await row(stuck.body.result)).toMatchObject({ status: 'FAILURE', fail_reason: '任务超时' });

    // A task accepted by one instance that then stops is polled and billed right by a fresh one.
    mjA.nextScript([{ status: 'IN_PROGRESS' }, { status: 'FAILURE', failReason: 'worker lost' }]);
    const third = await startTestServer({ database: server.database, env: { TASK_POLL_INTERVAL: '0' } });
    let survivor: TestServer | null = null;
    try {
      await setOption(third.ctx, 'DrawingEnabled', 'true');
      const accepted = await call(payer.key, 'POST', '/mj/submit/imagine', { prompt: 'restart' }, undefined, third);
      expect(accepted.body.code).toBe(1);
      await third.relay.tasks.pollOnce();
      await third.stop();
      // On SQLite the file is the database: the instance that carries on opens it again.
      survivor = kind === 'sqlite' ? await startTestServer({ database: server.database, env: { TASK_POLL_INTERVAL: '0' } }) : second;
      const poller = (survivor ?? server).relay.tasks;
      await poller.pollOnce();
      await poller.pollOnce();
      expect(await row(accepted.body.result)).toMatchObject({ status: 'FAILURE', fail_reason: 'worker lost' });
    } finally {
      if (kind === 'sqlite') await survivor?.stop();
    }
    const after = await ledger(payer);
    expect(after.consumed).toBe(before.consumed + 2 * quotaOf('mj_imagine'));
    expect(after.refunded).toBe(before.refunded + 2 * quotaOf('mj_imagine'));
    expect(after.quota).toBe(1_000_000);
    expect(after.tokenRemain).toBe(1_000_000);
    expect(after.used).toBe(0);
  });

  it('balances after concurrent submits beyond the balance: only what the quota covers is accepted and billed', async () => {
    const payer = await newCaller(quotaOf('mj_imagine') * 5);
    mjA.nextScript([{ status: 'SUCCESS' }]);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_v, index) => call(payer.key, 'POST', '/mj/submit/imagine', { prompt: `burst ${index}` })),
    );
    const accepted = results.filter((result) => result.status === 200 && result.body.code === 1);
    expect(accepted.length).toBe(5);
    expect(
      results
        .filter((result) => result.status !== 200)
        .every((result) => result.status >= 400 && result.status < 500 && typeof result.body.description === 'string'),
    ).toBe(true);
    await pollAll(1);
    const state = await ledger(payer);
    expect(state.consumed - state.refunded).toBe(5 * quotaOf('mj_imagine'));
    expect(state.used).toBe(5 * quotaOf('mj_imagine'));
    expect(state.quota).toBe(0);
    expect(state.tokenUsed).toBe(5 * quotaOf('mj_imagine'));
    const rows = await db().selectFrom('midjourneys').select(['mj_id']).where('user_id', '=', payer.id).execute();
    expect(rows.map((item) => item.mj_id).sort()).toEqual(accepted.map((result) => result.body.result).sort());
  });

  it("never proxies an image an upstream places on the gateway's own network, unless the root allows private addresses", async () => {
    // What a hostile upstream would point at: a metadata-like service on this host, on another origin than the channel.
    const reads: string[] = [];
    const internal = http.createServer((req, res) => {
      reads.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('iam-credentials');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    const internalPort = (internal.address() as AddressInfo).port;
    try {
      const finished = async (imageUrl: string) => {
        mjA.nextScript([{ status: 'SUCCESS', imageUrl }]);
        const submitted = await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'a harmless cat' });
        await pollAll(1);
        expect(await row(submitted.body.result)).toMatchObject({ status: 'SUCCESS', image_url: imageUrl });
        return fetch(`${server.url}/mj/image/${submitted.body.result}`);
      };
      for (const imageUrl of [`http://127.0.0.1:${internalPort}/latest/meta-data/`, `http://localhost:${internalPort}/latest/meta-data/`]) {
        const refused = await finished(imageUrl);
        expect([refused.status, await refused.text()], imageUrl).toEqual([502, '图片地址不被允许']);
      }
      await setOption(server.ctx, 'fetch_setting.allowed_ports', '["1-65535"]');
      const byName = await finished(`http://localhost:${internalPort}/latest/meta-data/`);
      expect([byName.status, await byName.text()]).toEqual([502, '图片地址不被允许']);
      expect(reads).toEqual([]);
      // The far side: allowed by the root, the same image is proxied.
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
      const allowed = await finished(`http://localhost:${internalPort}/latest/meta-data/`);
      expect([allowed.status, await allowed.text()]).toEqual([200, 'iam-credentials']);
      expect(reads).toEqual(['/latest/meta-data/']);
    } finally {
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'false');
      await setOption(server.ctx, 'fetch_setting.allowed_ports', '["80", "443", "8080", "8443"]');
      await new Promise<void>((resolve) => internal.close(() => resolve()));
    }
  });

  it('refuses bad input, unpriced actions and the disabled feature with Midjourney-shaped 4xx, billing nothing', async () => {
    const before = await ledger(user);
    const tasksBefore = (await db().selectFrom('midjourneys').select('id').where('user_id', '=', user.id).execute()).length;
    expect(await call(user.key, 'POST', '/mj/submit/imagine', {})).toMatchObject({
      status: 400,
      body: { code: 4, description: expect.stringContaining('prompt') },
    });
    expect(await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 7 })).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await call(user.key, 'POST', '/mj/submit/imagine', '{"prompt": "x"')).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'x', notifyHook: 'file:///etc/passwd' })).toMatchObject({
      status: 400,
      body: { code: 4 },
    });
    expect(await call(user.key, 'POST', '/mj/submit/change', { taskId: '1', action: 'UPSCALE' })).toMatchObject({
      status: 400,
      body: { code: 4, description: expect.stringContaining('index') },
    });
    expect(await call(user.key, 'POST', '/mj/submit/simple-change', { content: 'nonsense' })).toMatchObject({
      status: 400,
      body: { code: 4 },
    });
    expect(await call(user.key, 'POST', '/mj/submit/action', { taskId: '1', customId: 'MJ::JOB::unknown::1' })).toMatchObject({
      status: 400,
      body: { code: 4 },
    });
    expect(await call(user.key, 'POST', '/mj/submit/blend', { base64Array: ['a'] })).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await call(user.key, 'POST', '/mj/task/list-by-condition', { ids: 'x' })).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await call(user.key, 'GET', `/mj/task/${'9'.repeat(300)}/fetch`)).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await call(user.key, 'GET', '/mj/task/123/image-seed')).toMatchObject({ status: 404, body: { code: 3 } });
    expect((await fetch(`${server.url}/mj/image/123`)).status).toBe(404);
    // Hostile bodies on every submit route: a 4xx (or an accepted task), never a 5xx.
    const hostile: unknown[] = [
      [],
      'x',
      null,
      { prompt: {} },
      { taskId: { $gt: 1 }, action: 'UPSCALE', index: 1 },
      { prompt: 'a\u0000b\ud800' },
      { base64Array: Array.from({ length: 1000 }, () => 'a') },
      { customId: 'MJ::', taskId: '1' },
      { content: `${'9'.repeat(500)} U1` },
      { ids: [null] },
    ];
    for (const route of [
      'imagine',
      'change',
      'simple-change',
      'describe',
      'blend',
      'action',
      'modal',
      'shorten',
      'edits',
      'video',
      'upload-discord-images',
    ]) {
      for (const body of hostile) {
        const answer = await call(user.key, 'POST', `/mj/submit/${route}`, JSON.stringify(body));
        expect(answer.status, `${route} ${JSON.stringify(body).slice(0, 60)}`).toBeLessThan(500);
        if (answer.status !== 200) expect(answer.body).toMatchObject({ code: expect.any(Number), description: expect.any(String) });
      }
    }
    // mj_blend has no price: refused by name.
    expect(await call(user.key, 'POST', '/mj/submit/blend', { base64Array: ['a', 'b'] })).toMatchObject({
      status: 400,
      body: { code: 4, description: expect.stringContaining('mj_blend') },
    });
    await setOption(server.ctx, 'DrawingEnabled', 'false');
    expect(await call(user.key, 'POST', '/mj/submit/imagine', { prompt: 'x' })).toMatchObject({
      status: 403,
      body: { code: 4, description: 'Drawing is not enabled' },
    });
    expect((await fetch(`${server.url}/mj/image/123`)).status).toBe(403);
    await setOption(server.ctx, 'DrawingEnabled', 'true');
    // What was accepted among the hostile bodies was billed like any task, and nothing else.
    const accepted = await db().selectFrom('midjourneys').select(['quota']).where('user_id', '=', user.id).orderBy('id').execute();
    const billed = accepted.slice(tasksBefore).reduce((sum, task) => sum + Number(task.quota), 0);
    expect((await ledger(user)).consumed).toBe(before.consumed + billed);
  });
});
