import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, collect, createSdkCaller, quotaOfLog, setChannelOther } from './sdk-setup.js';

const json = (body: string) => ({ status: 200, contentType: 'application/json', body });
const sse = (body: string) => ({ status: 200, contentType: 'text/event-stream', body });

/** The openai client on the knowledge-base channels: AI Proxy library (21) and FastGPT (22), billed on counted tokens. */
describe('openai client → knowledge-base channels (AI Proxy library, FastGPT)', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};
  const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'What does ModelGate do?' }] });

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'kb-library': 1, 'kb-fastgpt': 2 }));
    caller = await createSdkCaller(server.ctx);
    channels.library = await createRelayChannel(server.ctx, { type: 21, key: 'aip-key', baseURL: upstream.url, models: ['kb-library'] });
    await setChannelOther(server.ctx, channels.library, 'lib-42');
    channels.fastgpt = await createRelayChannel(server.ctx, {
      type: 22,
      key: 'fastgpt-abc',
      baseURL: upstream.url,
      models: ['kb-fastgpt'],
    });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('AI Proxy library: the answer with its documents as links, non-stream and stream, billed on counted tokens', async () => {
    upstream.reply(json(readFixture('aiproxy-library', 'ask.json')));
    const completion = await client.chat.completions.create(ask('kb-library'));
    expect(completion.choices[0]!.message.content).toContain(
      'ModelGate relays model APIs and bills them exactly.\n\n参考资料：\n1. [Introduction](https://docs.example.com/intro)',
    );
    expect(upstream.requests.at(-1)).toMatchObject({
      url: '/api/library/ask',
      json: { query: 'What does ModelGate do?', libraryId: 'lib-42', stream: false, model: 'kb-library' },
    });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer aip-key');

    upstream.reply(sse(readFixture('aiproxy-library', 'ask-stream.chunks.txt')));
    const { text, usage } = await collect(
      await client.chat.completions.create({ ...ask('kb-library'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('ModelGate relays model APIs.\n\n参考资料：\n1. [Introduction](https://docs.example.com/intro)');
    expect(usage!.prompt_tokens).toBeGreaterThan(0);
    expect(usage!.completion_tokens).toBeGreaterThan(0);

    const state = await billedState(server.ctx, { ...caller, channelId: channels.library! });
    expect(state.logs).toHaveLength(2);
    for (const log of state.logs) {
      expect(log.prompt_tokens).toBeGreaterThan(0);
      expect(log.completion_tokens).toBeGreaterThan(0);
      expect(log.quota).toBe(quotaOfLog(log, log.other));
    }
    expect(state.logs[0]).toMatchObject({ is_stream: 1, prompt_tokens: usage!.prompt_tokens, completion_tokens: usage!.completion_tokens });
    expect(state.channelUsed).toBe(state.logs.reduce((sum, log) => sum + log.quota, 0));
  });

  it('AI Proxy library: a rejected key (HTTP 200, success:false) is a 401-class failure and nothing is billed', async () => {
    const before = await billedState(server.ctx, { ...caller, channelId: channels.library! });
    upstream.reply(json(readFixture('aiproxy-library', 'error-key.json')));
    const failure = await client.chat.completions.create(ask('kb-library')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(400);
    const after = await billedState(server.ctx, { ...caller, channelId: channels.library! });
    expect(after.logs).toHaveLength(before.logs.length);
    expect(after.userUsed).toBe(before.userUsed);
  });

  it('FastGPT: detail:false sent, no upstream usage, tokens counted and billed, stream and non-stream', async () => {
    upstream.reply(json(readFixture('fastgpt', 'chat.json')));
    const completion = await client.chat.completions.create({
      ...ask('kb-fastgpt'),
      chatId: 'c-7',
    } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    expect(completion.choices[0]!.message.content).toBe('知识库里说：ModelGate 按量计费。');
    expect(upstream.requests.at(-1)).toMatchObject({
      url: '/v1/chat/completions',
      json: { model: 'kb-fastgpt', detail: false, chatId: 'c-7' },
    });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer fastgpt-abc');

    upstream.reply(sse(readFixture('fastgpt', 'chat-stream.chunks.txt')));
    const { text, usage } = await collect(
      await client.chat.completions.create({ ...ask('kb-fastgpt'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('知识库里说：按量计费。');
    expect(usage!.completion_tokens).toBeGreaterThan(0);

    const state = await billedState(server.ctx, { ...caller, channelId: channels.fastgpt! });
    expect(state.logs).toHaveLength(2);
    for (const log of state.logs) {
      expect(log.prompt_tokens).toBeGreaterThan(0);
      expect(log.completion_tokens).toBeGreaterThan(0);
      expect(log.quota).toBe(quotaOfLog(log, log.other));
    }
  });
});
