import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createSdkCaller } from './sdk-setup.js';

/**
 * Upstream stream events with a stray null or scalar where a choice, a delta or a tool call belongs
 * (seen when a proxy in front of a provider mangles events): the gateway skips what it cannot read,
 * delivers the rest, ends the stream and bills it. They once crashed the usage reader: a 500 before
 * the first byte, or a client left waiting with its bill lost when no usage event followed.
 */
const chunk = (choices: unknown) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices })}\n\n`;
const usage = (prompt: number, completion: number) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`;
const streams: Record<string, string> = {
  '/openai/with-usage/v1/chat/completions':
    chunk([null]) +
    chunk([{ index: 0, delta: { role: 'assistant', content: 'Hel' } }, 7]) +
    chunk([{ index: 0, delta: { content: 'lo', tool_calls: [null] } }]) +
    chunk([{ index: 0, delta: null, finish_reason: 'stop' }]) +
    usage(11, 5) +
    'data: [DONE]\n\n',
  '/openai/no-usage/v1/chat/completions':
    chunk([null]) + chunk([{ index: 0, delta: { role: 'assistant', content: 'Hello there' } }]) + chunk(['x']) + 'data: [DONE]\n\n',
  '/minimax/v1/text/chatcompletion_v2':
    chunk([null]) +
    chunk([{ index: 0, delta: { role: 'assistant', content: 'Hello' } }, null]) +
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]) +
    usage(9, 4) +
    'data: [DONE]\n\n',
};

describe('stray nulls in upstream stream events', () => {
  let server: TestServer;
  let upstream: http.Server;
  let caller: { userId: number; apiKey: string };

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(streams[req.url ?? ''] ?? '');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    server = await startTestServer();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-usage': 1, 'gpt-counted': 1, 'MiniMax-Text-01': 1 }));
    await setOption(server.ctx, 'CompletionRatio', JSON.stringify({ 'gpt-usage': 1, 'gpt-counted': 1, 'MiniMax-Text-01': 1 }));
    caller = await createSdkCaller(server.ctx);
    await createRelayChannel(server.ctx, { type: 1, key: 'k1', baseURL: `${base}/openai/with-usage`, models: ['gpt-usage'] });
    await createRelayChannel(server.ctx, { type: 1, key: 'k2', baseURL: `${base}/openai/no-usage`, models: ['gpt-counted'] });
    await createRelayChannel(server.ctx, { type: 35, key: 'mm-key', baseURL: `${base}/minimax`, models: ['MiniMax-Text-01'] });
  });
  afterAll(async () => {
    await server?.stop();
    upstream?.close();
  });

  const client = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 10_000 });
  async function textOf(model: string): Promise<string> {
    const stream = await client().chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const part of stream) for (const choice of part.choices ?? []) text += choice?.delta?.content ?? '';
    return text;
  }
  const logOf = async (model: string) => {
    await flushRelay(server.ctx);
    return server.ctx.storage.db
      .selectFrom('logs')
      .select(['prompt_tokens', 'completion_tokens', 'quota'])
      .where('model_name', '=', model)
      .where('type', '=', 2)
      .executeTakeFirst();
  };

  it('delivers the readable events and bills the upstream usage (OpenAI wire, MiniMax)', async () => {
    expect(await textOf('gpt-usage')).toBe('Hello');
    expect(await logOf('gpt-usage')).toMatchObject({ prompt_tokens: 11, completion_tokens: 5 });
    expect(await textOf('MiniMax-Text-01')).toBe('Hello');
    expect(await logOf('MiniMax-Text-01')).toMatchObject({ prompt_tokens: 9, completion_tokens: 4 });
  });

  it('with no usage event, ends the stream and bills what it counted', async () => {
    expect(await textOf('gpt-counted')).toBe('Hello there');
    const log = await logOf('gpt-counted');
    expect(log?.completion_tokens).toBeGreaterThan(0);
    expect(log?.prompt_tokens).toBeGreaterThan(0);
    expect(Number(log?.quota)).toBeGreaterThan(0);
  });
});
