import { createHmac } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zhipuTokenCache } from '../../src/relay/providers/zhipu/jwt.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, quotaOfLog } from './sdk-setup.js';

const json = (body: string) => ({ status: 200, contentType: 'application/json', body });
const sse = (body: string) => ({ status: 200, contentType: 'text/event-stream', body });

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = '';
  let usage: OpenAI.CompletionUsage | undefined;
  let finishReason: string | null = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, usage, finishReason };
}

/** Whether a raw `Authorization` value is a Zhipu JWT for `id` signed with `secret`. */
function isZhipuJwt(authorization: unknown, id: string, secret: string): boolean {
  const [header, claims, signature] = String(authorization).split('.');
  if (!header || !claims || !signature) return false;
  const expected = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  return signature === expected && JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')).api_key === id;
}

/** The openai client's chat (and embeddings) on Zhipu v3 (type 16) and MiniMax (type 35) channels. */
describe('openai client → Zhipu v3 and MiniMax channels', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};
  const ask = (model: string) => ({
    model,
    messages: [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hello' },
    ],
  });

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    zhipuTokenCache.clear();
    const { ctx } = server;
    await setOption(ctx, 'SelfUseModeEnabled', 'true');
    await setOption(ctx, 'RetryTimes', '2');
    const ratios: Record<string, number> = { chatglm_turbo: 1, 'MiniMax-Text-01': 1, 'embo-01': 1, 'mm-failover': 1 };
    await setOption(ctx, 'ModelRatio', JSON.stringify({ ...ctx.options.json<Record<string, number>>('ModelRatio'), ...ratios }));
    caller = await createSdkCaller(ctx);
    channels.zhipu = await createRelayChannel(ctx, { type: 16, key: 'zid.zsecret', baseURL: upstream.url, models: ['chatglm_turbo'] });
    channels.minimax = await createRelayChannel(ctx, {
      type: 35,
      key: 'mm-key',
      baseURL: upstream.url,
      models: ['MiniMax-Text-01', 'embo-01'],
    });
    channels.minimaxBroken = await createRelayChannel(ctx, {
      type: 35,
      key: 'mm-revoked',
      baseURL: upstream.url,
      models: ['mm-failover'],
      priority: 10,
      autoBan: false,
    });
    channels.minimaxSpare = await createRelayChannel(ctx, {
      type: 35,
      key: 'mm-spare',
      baseURL: upstream.url,
      models: ['mm-failover'],
      priority: 0,
    });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    zhipuTokenCache.clear();
    await server.stop();
    await upstream.close();
  });

  it('Zhipu v3: /invoke with a signed JWT, the answer converted and billed on its usage', async () => {
    upstream.reply(json(readFixture('zhipu-v3', 'invoke.json')));
    const completion = await client.chat.completions.create(ask('chatglm_turbo'));
    expect(completion.choices[0]!.message.content).toBe(' Hello! I am ChatGLM.\nHow can I help?');
    expect(completion.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 12 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/api/paas/v3/model-api/chatglm_turbo/invoke');
    expect(isZhipuJwt(sent.headers.authorization, 'zid', 'zsecret')).toBe(true);
    expect(sent.json.prompt).toEqual([
      { role: 'user', content: 'Be brief.' },
      { role: 'assistant', content: 'Okay' },
      { role: 'user', content: 'Hello' },
    ]);
    const state = await billedState(server.ctx, { ...caller, channelId: channels.zhipu! });
    expect(state.logs[0]).toMatchObject({ model_name: 'chatglm_turbo', prompt_tokens: 17, completion_tokens: 12, is_stream: 0 });
    expect(state.logs[0]!.quota).toBe(quotaOfLog(state.logs[0]!, state.logs[0]!.other));
  });

  it('Zhipu v3: /sse-invoke raw-text stream with the usage of its meta line, billed exactly', async () => {
    upstream.reply(sse(readFixture('zhipu-v3', 'sse-invoke.chunks.txt')));
    const { text, usage, finishReason } = await collect(
      await client.chat.completions.create({ ...ask('chatglm_turbo'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('Hello world,\nsecond line done.');
    expect(finishReason).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 7 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
    expect(isZhipuJwt(sent.headers.authorization, 'zid', 'zsecret')).toBe(true);
    const state = await billedState(server.ctx, { ...caller, channelId: channels.zhipu! });
    expect(state.logs[0]).toMatchObject({ prompt_tokens: 9, completion_tokens: 7, is_stream: 1 });
  });

  it('Zhipu v3: an HTTP-200 failure is an upstream error for the client, and nothing is billed', async () => {
    const before = await billedState(server.ctx, { ...caller, channelId: channels.zhipu! });
    upstream.reply(json(readFixture('zhipu-v3', 'invoke-rate-error.json')));
    const failure = await client.chat.completions.create(ask('chatglm_turbo')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    const after = await billedState(server.ctx, { ...caller, channelId: channels.zhipu! });
    expect(after.logs).toHaveLength(before.logs.length);
    expect(after.userUsed).toBe(before.userUsed);
    expect(upstream.requests.at(-1)!.url).toBe('/api/paas/v3/model-api/chatglm_turbo/invoke');
  });

  it('MiniMax: chatcompletion_v2 non-stream and stream (stream_options sent), billed on its usage', async () => {
    upstream.reply(json(readFixture('minimax', 'chat.json')));
    const completion = await client.chat.completions.create(ask('MiniMax-Text-01'));
    expect(completion.choices[0]!.message.content).toBe('Hello! How can I help you today?');
    expect(completion.usage).toMatchObject({ prompt_tokens: 65, completion_tokens: 9 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/text/chatcompletion_v2');
    expect(sent.headers.authorization).toBe('Bearer mm-key');

    upstream.reply(sse(readFixture('minimax', 'chat-stream.chunks.txt')));
    const { text, usage } = await collect(await client.chat.completions.create({ ...ask('MiniMax-Text-01'), stream: true }));
    expect(text).toBe('Hello there!');
    expect(usage).toBeUndefined();
    expect(upstream.requests.at(-1)!.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.minimax! });
    expect(state.logs.map((log) => [log.is_stream, log.prompt_tokens, log.completion_tokens])).toEqual([
      [1, 66, 4],
      [0, 65, 9],
    ]);
  });

  it('MiniMax: a base_resp auth failure on HTTP 200 fails over to the next channel', async () => {
    upstream.reply(json(readFixture('minimax', 'chat-auth-error.json')));
    upstream.reply(json(readFixture('minimax', 'chat.json')));
    const completion = await client.chat.completions.create(ask('mm-failover'));
    expect(completion.choices[0]!.message.content).toBe('Hello! How can I help you today?');
    expect(upstream.requests.slice(-2).map((request) => request.headers.authorization)).toEqual(['Bearer mm-revoked', 'Bearer mm-spare']);
    expect((await billedState(server.ctx, { ...caller, channelId: channels.minimaxBroken! })).logs).toHaveLength(0);
    expect((await billedState(server.ctx, { ...caller, channelId: channels.minimaxSpare! })).logs[0]).toMatchObject({
      prompt_tokens: 65,
      completion_tokens: 9,
    });
  });

  it('MiniMax: embeddings as {model, texts, type} with vectors back, billed on total_tokens', async () => {
    upstream.reply(json(readFixture('minimax', 'embeddings.json')));
    const result = await client.embeddings.create({ model: 'embo-01', input: ['a cat', 'a dog'], encoding_format: 'float' });
    expect(result.data.map((item) => item.embedding)).toEqual([
      [0.0123, -0.0456, 0.0789],
      [0.1, 0.2, -0.3],
    ]);
    expect(upstream.requests.at(-1)!).toMatchObject({
      url: '/v1/embeddings',
      json: { model: 'embo-01', texts: ['a cat', 'a dog'], type: 'db' },
    });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.minimax! });
    expect(state.logs[0]).toMatchObject({ model_name: 'embo-01', prompt_tokens: 12, completion_tokens: 0 });
  });
});
