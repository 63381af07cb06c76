import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer, relayOf } from '../helpers/test-server.js';
import { openClient } from '../helpers/realtime-upstream.js';
import { startHostileRealtime, type HostileRealtime } from '../helpers/hostile-realtime.js';

/** The Realtime relay against a misbehaving upstream and a hostile client (real sockets both sides). */
describe('GET /v1/realtime with hostile peers', () => {
  let server: TestServer;
  let upstream: HostileRealtime;
  let wsBase: string;

  beforeAll(async () => {
    upstream = await startHostileRealtime();
    // A 1 s relay timeout: the handshake's deadline.
    server = await startTestServer({ env: { RELAY_TIMEOUT: '1' } });
    wsBase = server.url.replace(/^http/, 'ws');
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  const heldOf = (userId: number) => [...relayOf(server.ctx).access.cachedUsers()].find((cached) => cached.id === userId)?.held;

  async function session(channelKey: string, model: string) {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    const channelId = await createRelayChannel(server.ctx, { key: channelKey, baseURL: upstream.url, models: [model], autoBan: false });
    const client = openClient(`${wsBase}/v1/realtime?model=${model}`, { headers: { Authorization: `Bearer ${token.apiKey}` } });
    return { userId, channelId, client };
  }

  it('an upstream that trickles its refusal forever is given up at the relay timeout, nothing held', async () => {
    const { userId, client } = await session('trickle-key', 'gpt-realtime-2025-08-28');
    await client.opened;
    const startedAt = Date.now();
    const closed = await Promise.race([client.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 6000))]);
    expect(closed).toMatchObject({ code: 1011 });
    expect(Date.now() - startedAt).toBeLessThan(4000);
    expect(JSON.parse(client.frames[0]!.text).error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    expect(heldOf(userId)).toBe(0);
    // The refusal's connection is dropped, not left trickling.
    await upstream.ended.at(-1);
  });

  it('an upstream close reason reaches the client without the channel key or the upstream address', async () => {
    const channelKey = 'reason-sk-proj-Hq3Lm8Zt5Wv2Xy7Rk4Np9Bc1';
    const { client } = await session(channelKey, 'gpt-realtime');
    await client.opened;
    const closed = await client.closed;
    expect(closed.code).toBe(4000);
    expect(closed.reason).not.toContain('Hq3Lm8Zt5');
    expect(closed.reason).not.toContain('10.20.30.40');
    expect(closed.reason).toContain('Incorrect API key provided');
  });
});
