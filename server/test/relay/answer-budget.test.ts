import http from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeLogsOf, createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { listenLocal } from '../helpers/local-http.js';
import { relayOf, startTestServer, type TestServer } from '../helpers/test-server.js';
import { createSdkCaller } from './sdk-setup.js';

/**
 * Whole (non-stream) answers being read count against MAX_ANSWER_MEMORY_MB, as request bodies count
 * against MAX_BODY_MEMORY_MB: many large answers at once (a hostile upstream's) cannot take the
 * instance's memory. An answer that would pass the budget is dropped with a 503 `busy` and
 * Retry-After, nothing billed and no channel blamed; the budget is given back as answers end.
 * On the pass-through (undici's dispatch API) and on converted channels.
 */
const KiB = 1024;

/** An OpenAI- or Claude-wire answer whose text makes it about `bytes` long. */
function answerOf(url: string, bytes: number): { head: string; tail: string; filler: number } {
  const isClaude = url.includes('/v1/messages');
  const head = isClaude
    ? '{"id":"msg_1","type":"message","role":"assistant","model":"claude-budget","content":[{"type":"text","text":"'
    : '{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-budget","choices":[{"index":0,"message":{"role":"assistant","content":"';
  const tail = isClaude
    ? '"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}'
    : '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}';
  return { head, tail, filler: bytes - head.length - tail.length };
}

describe('the memory budget of upstream answers', () => {
  let server: TestServer;
  let upstream: http.Server;
  let caller: { userId: number; tokenId: number; apiKey: string };

  beforeAll(async () => {
    server = await startTestServer({ env: { MAX_ANSWER_MEMORY_MB: '1' } });
    // /big/*: 2 MiB at once; /slow/*: 700 KiB, half of it, a pause, then the rest; /small/*: 1 KiB.
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const url = req.url ?? '';
        const size = url.startsWith('/big') ? 2048 * KiB : url.startsWith('/slow') ? 700 * KiB : KiB;
        const { head, tail, filler } = answerOf(url, size);
        res.writeHead(200, { 'content-type': 'application/json' });
        const half = Math.floor(filler / 2);
        res.write(head + 'a'.repeat(half));
        const rest = () => res.end('a'.repeat(filler - half) + tail);
        if (url.startsWith('/slow')) setTimeout(rest, 400);
        else rest();
      });
    });
    const base = await listenLocal(upstream);
    await setOption(server.ctx, 'RetryTimes', '2');
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-budget': 1, 'gpt-slow': 1, 'gpt-small': 1, 'claude-budget': 1 }));
    caller = await createSdkCaller(server.ctx);
    // A busy instance is no channel's failure: the next channel would answer, and must not be tried.
    await createRelayChannel(server.ctx, { key: 'sk-big', baseURL: `${base}/big`, models: ['gpt-budget'], priority: 10 });
    await createRelayChannel(server.ctx, { key: 'sk-small', baseURL: `${base}/small`, models: ['gpt-budget', 'gpt-small'] });
    await createRelayChannel(server.ctx, { key: 'sk-slow', baseURL: `${base}/slow`, models: ['gpt-slow'] });
    await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant', baseURL: `${base}/big`, models: ['claude-budget'] });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const chat = (model: string) => openai().chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const budget = () => relayOf(server.ctx).answerBudget;

  it('answers 503 busy for an answer past the budget, blaming no channel and billing nothing', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-budget', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({
      error: {
        message: 'The server is reading too many upstream answers at once. Please retry shortly',
        type: 'server_error',
        param: null,
        code: 'busy',
      },
    });
    expect(budget().bytesInUse).toBe(0);
    const channel = await server.ctx.storage.db
      .selectFrom('channels')
      .select('status')
      .where('key', '=', 'sk-big')
      .executeTakeFirstOrThrow();
    expect(channel.status).toBe(1);
    expect(await consumeLogsOf(server.ctx, caller.userId)).toHaveLength(0);
  });

  it('does the same on a converted channel, in the caller shape', async () => {
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': caller.apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-budget', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ type: 'error', error: { message: expect.stringContaining('upstream answers') } });
    expect(budget().bytesInUse).toBe(0);
    expect(await consumeLogsOf(server.ctx, caller.userId)).toHaveLength(0);
  });

  it('serves answers that fit, one after another, far more than the budget in all', async () => {
    for (let i = 0; i < 3; i += 1) {
      const answer = await chat('gpt-slow');
      expect(answer.choices[0]!.message.content!.length).toBeGreaterThan(600 * KiB);
    }
    expect((await chat('gpt-small')).usage?.total_tokens).toBe(5);
    expect(budget().bytesInUse).toBe(0);
  });

  it('lets one of two answers that would pass the budget together through, and refuses the other', async () => {
    const results = await Promise.allSettled([chat('gpt-slow'), chat('gpt-slow')]);
    const served = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    expect(served).toHaveLength(1);
    expect(refused).toHaveLength(1);
    const error = (refused[0] as PromiseRejectedResult).reason as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(503);
    expect(error.code).toBe('busy');
    expect(budget().bytesInUse).toBe(0);
  });
});
