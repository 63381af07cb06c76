import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeLogsOf, createRelayChannel, createRelayToken, createRelayUser } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer, relayOf } from '../helpers/test-server.js';
import { eventTypes, openClient, startMockRealtime, waitFor, type MockRealtime } from '../helpers/realtime-upstream.js';

const model = 'gpt-4o-realtime-preview';
const MiB = 1024 * 1024;
/** An `input_audio_buffer.append` event of about `bytes` bytes. */
const append = (bytes: number) => JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(bytes) });

/** A session of a new user over a channel of its own on `mock`: the client once session.created came, and the upstream's connection. */
async function openSession(server: TestServer, mock: MockRealtime, headers: Record<string, string> = {}) {
  const userId = await createRelayUser(server.ctx, { quota: 50_000_000 });
  const token = await createRelayToken(server.ctx, userId);
  await createRelayChannel(server.ctx, { key: `frames-${userId}`, baseURL: mock.url, models: [model] });
  const before = mock.connections.length;
  const client = openClient(`${server.url.replace(/^http/, 'ws')}/v1/realtime?model=${model}`, {
    headers: { Authorization: `Bearer ${token.apiKey}`, ...headers },
  });
  await client.opened;
  await waitFor(() => client.frames.length >= 1, 'session.created');
  return { userId, client, upstream: mock.connections[before]! };
}

/** What the user has held in the relay's cache. */
const heldOf = (server: TestServer, userId: number) =>
  [...relayOf(server.ctx).access.cachedUsers()].find((cached) => cached.id === userId)?.held;

/**
 * What a Realtime client may hold in the gateway's memory: one message is at most MAX_REQUEST_BODY_MB
 * (ws closes 1009 past it), and messages being received count against MAX_BODY_MEMORY_MB with the
 * request bodies being read, so many sessions sending large messages at once cannot exhaust memory.
 */
describe.each([
  ['a 1 MiB memory budget', { MAX_BODY_MEMORY_MB: '1' }],
  ['a 1 MiB message limit', { MAX_REQUEST_BODY_MB: '1' }],
])('Realtime client messages under %s', (_label, env) => {
  let server: TestServer;
  let mock: MockRealtime;

  beforeAll(async () => {
    mock = await startMockRealtime();
    server = await startTestServer({ env });
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  it('relays messages under the limits one after another, far more than the budget in all', async () => {
    const { client, upstream } = await openSession(server, mock);
    for (let i = 0; i < 8; i += 1) client.socket.send(append(600 * 1024));
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    expect(upstream.received).toHaveLength(9);
    expect(upstream.received.slice(0, 8).every((frame) => frame.data.length > 600 * 1024)).toBe(true);
    client.socket.close();
    await client.closed;
  });

  it('ends a session whose message passes the limit, never relays it, bills it, and serves the next', async () => {
    const { userId, client, upstream } = await openSession(server, mock);
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    client.socket.send(append(3 * MiB));
    const closed = await client.closed;
    const isBudget = 'MAX_BODY_MEMORY_MB' in env;
    // 1013 (try again later) when the instance cannot hold it now; 1009 (too big) past the message limit.
    expect(closed.code).toBe(isBudget ? 1013 : 1009);
    if (isBudget) {
      const error = JSON.parse(client.frames.at(-1)!.text) as { type: string; error: Record<string, unknown> };
      expect(error).toMatchObject({ type: 'error', error: { code: 'busy', type: 'server_error' } });
      expect(error.error.message).toBe('The server is reading too many requests at once. Please retry shortly');
    }
    expect(upstream.received).toHaveLength(1);
    await upstream.closed;
    // The response before it is billed, and nothing stays held.
    await waitFor(() => heldOf(server, userId) === 0, 'hold released');
    const logs = await consumeLogsOf(server.ctx, userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.quota).toBeGreaterThan(0);

    // The budget was given back: a new session and an HTTP call are served.
    const next = await openSession(server, mock);
    next.client.socket.send(append(600 * 1024));
    await waitFor(() => next.upstream.received.length === 1, 'the next session relays');
    next.client.socket.close();
    await next.client.closed;
  });
});

/**
 * What an upstream may hold in the gateway's memory: one message is at most 16 MiB (ws's own limit is
 * 100 MiB, each held whole before it is relayed). Past it the session ends as the upstream's failure:
 * the client is told so and closed with 1011, never 1009 (its own message too big), and billed for
 * what it used before.
 */
describe('Realtime upstream messages', () => {
  let server: TestServer;
  let mock: MockRealtime;

  beforeAll(async () => {
    mock = await startMockRealtime();
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  it('relays a large upstream message under the limit', async () => {
    const { client } = await openSession(server, mock);
    client.socket.send(JSON.stringify({ type: 'mock.huge', bytes: 4 * MiB }));
    const frame = await waitFor(() => client.frames.find((item) => item.text.length > 4 * MiB), 'the large event');
    expect(JSON.parse(frame.text)).toMatchObject({ type: 'response.audio.delta' });
    client.socket.close();
    await client.closed;
  });

  it.each([
    ['zh-CN', '上游消息超过 16 MiB'],
    ['en', 'An upstream message is larger than 16 MiB'],
  ])('ends the session on a message past 16 MiB, told in %s, billing what came before', async (language, message) => {
    const { userId, client } = await openSession(server, mock, language ? { 'Accept-Language': language } : {});
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    client.socket.send(JSON.stringify({ type: 'mock.huge', bytes: 17 * MiB }));
    const closed = await client.closed;
    expect(closed.code).toBe(1011);
    const error = JSON.parse(client.frames.at(-1)!.text) as { type: string; error: Record<string, unknown> };
    expect(error).toMatchObject({ type: 'error', error: { type: 'upstream_error', code: 'upstream_message_too_large', message } });
    expect(client.frames.every((frame) => frame.text.length < MiB)).toBe(true);
    await waitFor(() => heldOf(server, userId) === 0, 'hold released');
    const logs = await consumeLogsOf(server.ctx, userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.quota).toBeGreaterThan(0);
  });
});

/**
 * A client that stops reading: what the upstream sends waits in the gateway (at most 4 MiB, then the
 * upstream is paused), and the session would hold both connections, the hold and the slots for as long
 * as the client stays connected. As an HTTP stream's client (stream/idle-timer.ts), one that takes
 * nothing for 5 × STREAMING_TIMEOUT is ended and billed; one that only pauses is served on.
 */
describe('Realtime clients that stop reading', () => {
  let server: TestServer;
  let mock: MockRealtime;

  beforeAll(async () => {
    mock = await startMockRealtime();
    server = await startTestServer({ env: { STREAMING_TIMEOUT: '1' } });
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  const flood = JSON.stringify({ type: 'mock.huge', bytes: 4 * MiB, count: 10 });

  it('serves a client that pauses for less than the limit', async () => {
    const { client } = await openSession(server, mock);
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    client.socket.pause();
    client.socket.send(flood);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    client.socket.resume();
    await waitFor(() => client.frames.filter((frame) => frame.text.length > 4 * MiB).length === 10, 'every large event', 15_000);
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).filter((type) => type === 'response.done').length === 2, 'the next response.done');
    client.socket.close();
    await client.closed;
  });

  it('ends and bills a session whose client takes nothing for 5 × STREAMING_TIMEOUT', async () => {
    const { userId, client, upstream } = await openSession(server, mock);
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    client.socket.pause();
    const pausedAt = Date.now();
    client.socket.send(flood);
    await upstream.closed;
    expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(4_500);
    await waitFor(() => heldOf(server, userId) === 0, 'hold released');
    const logs = await consumeLogsOf(server.ctx, userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.quota).toBeGreaterThan(0);
    client.socket.resume();
    const closed = await client.closed;
    expect(closed.code).toBe(1006);
  }, 30_000);

  it('ends and bills a session whose upstream takes nothing for 5 × STREAMING_TIMEOUT, closing the client with 1011', async () => {
    const { userId, client } = await openSession(server, mock);
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(client.frames).includes('response.done'), 'response.done');
    client.socket.send(JSON.stringify({ type: 'mock.stall' }));
    const stalledAt = Date.now();
    for (let i = 0; i < 10; i += 1) client.socket.send(append(4 * MiB));
    const closed = await client.closed;
    expect(closed.code).toBe(1011);
    expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(4_500);
    // The local upstream, paused, never reads the end of its connection: its own close is not awaited.
    await waitFor(() => heldOf(server, userId) === 0, 'hold released');
    const logs = await consumeLogsOf(server.ctx, userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.quota).toBeGreaterThan(0);
  }, 30_000);
});
