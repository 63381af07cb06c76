import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createSdkCaller } from './sdk-setup.js';

/**
 * A Claude upstream that holds every answer after its first event until the test opens its gate, so
 * calls can be caught in flight. Each answer streams one text and Anthropic's usage.
 */
interface GatedUpstream {
  url: string;
  arrivals: number;
  open(): void;
  /** Closes the gate again and counts arrivals from zero. */
  reset(): void;
  close(): Promise<void>;
}

async function startGatedUpstream(): Promise<GatedUpstream> {
  let waiting: Array<() => void> = [];
  let isOpen = false;
  const state = { arrivals: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.arrivals += 1;
      // The head and the first event go out at once (a fan-out sends its other calls once the first has answered).
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('message_start', {
        message: {
          id: 'msg_g',
          type: 'message',
          role: 'assistant',
          model: 'claude-limit',
          content: [],
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      });
      const answer = () => {
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi.' } });
        event('content_block_stop', { index: 0 });
        event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } });
        event('message_stop', {});
        res.end();
      };
      if (isOpen) answer();
      else waiting.push(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => {
      isOpen = true;
      const held = waiting;
      waiting = [];
      for (const answer of held) answer();
    },
    reset: () => {
      isOpen = false;
      state.arrivals = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A fan-out (n > 1 on Claude) makes n upstream calls: each counts against the channel's limits. */
describe("a fan-out's calls count against the channel's limits", () => {
  let server: TestServer;
  let upstream: GatedUpstream;
  let caller: { userId: number; tokenId: number; apiKey: string };

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startGatedUpstream();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'claude-limit': 1, 'claude-rpm': 1 }));
    caller = await createSdkCaller(server.ctx);
    await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant-limit',
      baseURL: upstream.url,
      models: ['claude-limit'],
      setting: { max_concurrency: 3 },
    });
    await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant-rpm',
      baseURL: upstream.url,
      models: ['claude-rpm'],
      setting: { rpm_limit: 3 },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });
  beforeEach(() => upstream.reset());

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const ask = (model: string, n: number) =>
    openai().chat.completions.create({ model, n, max_tokens: 20, messages: [{ role: 'user', content: 'Hello' }] });
  const statusOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 200,
      (error: unknown) => (error instanceof OpenAI.APIError ? error.status : -1),
    );
  async function until(check: () => boolean) {
    for (let i = 0; i < 500 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(check()).toBe(true);
  }

  it('n: 3 takes all three slots of a channel at concurrency 3: another call is refused until it ends', async () => {
    const fanOut = ask('claude-limit', 3);
    await until(() => upstream.arrivals === 3);
    expect(await statusOf(ask('claude-limit', 1))).toBe(429);
    expect(upstream.arrivals).toBe(3);
    upstream.open();
    const answer = await fanOut;
    expect(answer.choices).toHaveLength(3);
    // The slots are free again.
    expect(await statusOf(ask('claude-limit', 1))).toBe(200);
  });

  it('n: 4 does not fit a channel at concurrency 3: refused with 429 before any call is sent', async () => {
    upstream.open();
    expect(await statusOf(ask('claude-limit', 4))).toBe(429);
    expect(upstream.arrivals).toBe(0);
  });

  it('n: 3 uses three of a channel at RPM 3: the next call in the minute is refused', async () => {
    upstream.open();
    expect((await ask('claude-rpm', 3)).choices).toHaveLength(3);
    expect(await statusOf(ask('claude-rpm', 1))).toBe(429);
    expect(upstream.arrivals).toBe(3);
  });
});
