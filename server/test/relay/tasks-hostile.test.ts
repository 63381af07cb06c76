import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskPlatforms } from '../../src/relay/tasks/platforms.js';
import { TaskPoller } from '../../src/relay/tasks/poller.js';
import { drip, sendJson, startWatched, type WatchedServer } from '../helpers/local-http.js';
import { startMjUpstream, type MjUpstream } from '../helpers/mj-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const quotaPerUnit = 500_000;
const musicQuota = 0.1 * quotaPerUnit;

/** The poller against upstreams that do not play fair: whatever one channel does, the others are polled and nothing is billed twice. */
describe.each(storageKinds())('task poller and hostile upstreams on %s', (kind) => {
  let server: TestServer;
  let suno: SunoUpstream;
  let mj: MjUpstream;
  /** A caller's notify hook that answers one byte at a time, forever. */
  let hook: WatchedServer;
  let hookUrl: string;
  /** A Suno proxy that accepts tasks, then answers each fetch one byte at a time, forever. */
  let trickle: WatchedServer;
  let fetchesStarted = 0;
  let user: { id: number; key: string };

  const call = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => (await res.json()) as { code: string; data: string });
  const task = (taskId: string) =>
    server.ctx.storage.db
      .selectFrom('tasks')
      .select(['status', 'lease_owner', 'quota'])
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    suno = await startSunoUpstream('suno-key');
    let next = 0;
    trickle = await startWatched((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url?.startsWith('/suno/submit/')) return sendJson(res, 200, { code: 'success', message: '', data: `slow-${(next += 1)}` });
        fetchesStarted += 1;
        drip(res, 'application/json', '{"code":"success","data":[');
      });
    });
    mj = await startMjUpstream('mj-key');
    hook = await startWatched((req, res) => {
      req.resume();
      drip(res, 'text/plain', '', '.', 500);
    });
    hookUrl = `${hook.url}/hook`;
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1, suno_lyrics: 0.02, mj_imagine: 0.1 }));
    await setOption(server.ctx, 'DrawingEnabled', 'true');
    await setOption(server.ctx, 'MjNotifyEnabled', 'true');
    // The hook is on this host: the SSRF protection is told to allow it.
    await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
    await setOption(server.ctx, 'fetch_setting.allowed_ports', '["1-65535"]');
    await createRelayChannel(server.ctx, { type: 2, key: 'mj-key', baseURL: mj.url, models: ['mj_imagine'] });
    // Music goes to the trickling proxy, lyrics to a sound one.
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: trickle.url, models: ['suno_music'] });
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: suno.url, models: ['suno_lyrics'] });
    const id = await createRelayUser(server.ctx, { quota: 1_000_000 });
    user = { id, key: (await createRelayToken(server.ctx, id, { remainQuota: 1_000_000 })).key };
  });
  afterAll(async () => {
    await server?.stop();
    await suno?.close();
    await mj?.close();
    await hook?.close();
    await trickle?.close();
  });

  it("an answer that never ends holds up neither the poll nor the other channels' tasks, and costs its task nothing", async () => {
    const slow = await call('/suno/submit/music', { prompt: 'never ends' });
    suno.nextScript([{ status: 'SUCCESS' }]);
    const sound = await call('/suno/submit/lyrics', { prompt: 'ends' });
    expect([slow.code, sound.code]).toEqual(['success', 'success']);
    const poller = new TaskPoller(server.ctx, server.relay, taskPlatforms, () => undefined, { fetchDeadlineMs: 300 });
    const outcome = await Promise.race([
      poller.pollOnce().then(() => 'polled'),
      new Promise((resolve) => setTimeout(() => resolve('hung'), 5000)),
    ]);
    expect(outcome).toBe('polled');
    expect(fetchesStarted).toBe(1);
    expect((await task(sound.data)).status).toBe('SUCCESS');
    // The slow channel's task is neither failed nor refunded for it: still charged, free for the next poll.
    expect(await task(slow.data)).toEqual({ status: 'SUBMITTED', lease_owner: '', quota: musicQuota });
    // The connection it held is let go, not left open to drip forever.
    for (let wait = 0; wait < 50 && trickle.sockets.size > 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(trickle.sockets.size).toBe(0);
  });

  it('a notify hook that answers forever is let go after the hook timeout, not kept open for days', async () => {
    mj.nextScript([{ status: 'IN_PROGRESS', progress: '10%' }]);
    const submitted = await call('/mj/submit/imagine', { prompt: 'a cat', notifyHook: hookUrl });
    const poller = new TaskPoller(server.ctx, server.relay, taskPlatforms, () => undefined, { fetchDeadlineMs: 300 });
    await poller.pollOnce();
    expect(submitted).toMatchObject({ code: 1 });
    await expect.poll(() => hook.sockets.size, { timeout: 2000 }).toBe(1);
    // The hook's timeout is 10 s: its dripping answer does not keep the connection past it.
    await expect.poll(() => hook.sockets.size, { timeout: 15_000, interval: 250 }).toBe(0);
  }, 25_000);
});
