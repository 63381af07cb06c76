import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drip, startWatched, type WatchedServer } from '../helpers/local-http.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { relayOf, startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * A task proxy that takes the submit and then answers it a byte at a time, forever: undici's idle
 * timers never fire on it. The submit ends at its deadline (RELAY_TIMEOUT here) as the channel's
 * failure, holds nothing afterwards, bills nothing and lets the connection go.
 */
describe.each(storageKinds())('a task submit whose answer never ends, on %s', (kind) => {
  let server: TestServer;
  let trickle: WatchedServer;
  let submits = 0;
  let userId: number;
  let key: string;
  const quota = 1_000_000;
  const heldOf = (id: number) => [...relayOf(server.ctx).access.cachedUsers()].find((cached) => cached.id === id)?.held;

  beforeAll(async () => {
    trickle = await startWatched((req, res) => {
      req.resume();
      req.on('end', () => {
        submits += 1;
        drip(res, 'application/json', '{"code":"success","data":"never-', 'x');
      });
    });
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0', RELAY_TIMEOUT: '1' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1 }));
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: trickle.url, models: ['suno_music'] });
    userId = await createRelayUser(server.ctx, { quota });
    key = (await createRelayToken(server.ctx, userId, { remainQuota: quota })).key;
  });
  afterAll(async () => {
    await server?.stop();
    await trickle?.close();
  });

  it('ends at the deadline as an upstream failure, billed nothing, holding nothing, its connection closed', async () => {
    const startedAt = Date.now();
    const res = await fetch(`${server.url}/suno/submit/music`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a song that never arrives' }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { code: string; message: string };
    const tookMs = Date.now() - startedAt;
    expect(submits).toBe(1);
    expect(tookMs).toBeLessThan(5_000);
    // The upstream's failure, told in Suno's shape (not a 500 of the gateway's).
    expect(res.status).toBeGreaterThanOrEqual(502);
    expect(res.status).not.toBe(500);
    expect(body.code).not.toBe('success');
    expect(body.message).toMatch(/upstream/i);
    await flushRelay(server.ctx);
    const user = await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(Number(user.quota)).toBe(quota);
    expect(heldOf(userId) ?? 0).toBe(0);
    const tasks = await server.ctx.storage.db.selectFrom('tasks').select('task_id').where('user_id', '=', userId).execute();
    expect(tasks).toEqual([]);
    for (let wait = 0; wait < 100 && trickle.sockets.size > 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(trickle.sockets.size).toBe(0);
  });
});
