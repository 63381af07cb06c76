import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxAnswerBytes } from '../../src/relay/upstream/upstream-answer.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createSdkCaller } from './sdk-setup.js';

/**
 * A whole (non-stream) answer is buffered before it is billed and sent: an upstream that answers
 * without end must not make the gateway hold it without bound. Past maxAnswerBytes the answer is
 * the channel's failure, on the pass-through (undici's dispatch API) and on converted channels.
 */
const piece = Buffer.alloc(1024 * 1024, 0x61);
const oversized = maxAnswerBytes / piece.length + 1;

/** A JSON answer whose one string runs past the cap, written with backpressure until the client goes. */
async function answerOversized(res: http.ServerResponse, prefix: string) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(prefix);
  for (let i = 0; i < oversized && !res.destroyed; i += 1) {
    if (!res.write(piece)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  res.end('"}');
}

const completion = (model: string) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'small answer' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  });

describe('an upstream answer past the size cap', () => {
  let server: TestServer;
  let upstream: http.Server;
  let caller: { userId: number; tokenId: number; apiKey: string };

  beforeAll(async () => {
    server = await startTestServer();
    // /huge/* answers past the cap (OpenAI or Claude wire); /small/* answers normally.
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const url = req.url ?? '';
        if (url.startsWith('/huge')) {
          void answerOversized(
            res,
            url.includes('/v1/messages')
              ? '{"id":"msg_1","type":"message","content":[{"type":"text","text":"'
              : '{"id":"x","choices":[{"message":{"content":"',
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(completion('gpt-size'));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await setOption(server.ctx, 'RetryTimes', '2');
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-size': 1, 'claude-size': 1 }));
    caller = await createSdkCaller(server.ctx);
    await createRelayChannel(server.ctx, {
      type: 1,
      key: 'sk-a',
      baseURL: `${base}/huge`,
      models: ['gpt-size'],
      priority: 10,
      autoBan: false,
    });
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-b', baseURL: `${base}/small`, models: ['gpt-size'] });
    await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant', baseURL: `${base}/huge`, models: ['claude-size'], autoBan: false });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });

  it('fails the pass-through channel over to the next one', async () => {
    const answer = await openai().chat.completions.create({ model: 'gpt-size', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]?.message.content).toBe('small answer');
  });

  it('answers a 502 when the only (converted) channel answers past the cap', async () => {
    const error = await openai()
      .chat.completions.create({ model: 'claude-size', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
  });
});
