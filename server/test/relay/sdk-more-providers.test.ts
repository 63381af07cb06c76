import { generateKeyPairSync } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vertexTokenCache } from '../../src/relay/providers/vertex/token.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, setChannelOther } from './sdk-setup.js';

const json = (body: string) => ({ status: 200, contentType: 'application/json', body });
const sse = (body: string) => ({ status: 200, contentType: 'text/event-stream', body });
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = '';
  let usage: OpenAI.CompletionUsage | undefined;
  const roles: string[] = [];
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.choices[0]?.delta?.role) roles.push(chunk.choices[0].delta.role);
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, usage, roles };
}

/** The openai client's chat on Vertex (Gemini + Claude), PaLM2, Dify and Cohere channels. */
describe('openai client → /v1/chat/completions on Vertex, PaLM2, Dify and Cohere channels', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};
  const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'Hello' }] });

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    vertexTokenCache.clear();
    const { ctx } = server;
    await setOption(ctx, 'SelfUseModeEnabled', 'true');
    caller = await createSdkCaller(ctx);
    const serviceAccount = JSON.stringify({
      type: 'service_account',
      project_id: 'demo-project',
      private_key_id: 'kid-e2e',
      private_key: privateKey,
      client_email: 'relay@demo-project.iam.gserviceaccount.com',
      token_uri: `${upstream.url}/token`,
    });
    channels.vertex = await createRelayChannel(ctx, {
      type: 41,
      key: serviceAccount,
      baseURL: upstream.url,
      models: ['gemini-2.5-flash', 'claude-sonnet-4@20250514'],
    });
    await setChannelOther(ctx, channels.vertex, 'europe-west1');
    channels.palm = await createRelayChannel(ctx, { type: 11, key: 'AIza-palm', baseURL: upstream.url, models: ['chat-bison-001'] });
    channels.difyChat = await createRelayChannel(ctx, { type: 37, key: 'app-chat', baseURL: upstream.url, models: ['dify-chat'] });
    await setChannelOther(ctx, channels.difyChat, 'chat');
    channels.difyAgent = await createRelayChannel(ctx, { type: 37, key: 'app-agent', baseURL: upstream.url, models: ['dify-agent'] });
    await setChannelOther(ctx, channels.difyAgent, 'agent');
    channels.cohere = await createRelayChannel(ctx, { type: 34, key: 'co-key', baseURL: upstream.url, models: ['command-r'] });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    vertexTokenCache.clear();
    await server.stop();
    await upstream.close();
  });

  it('Vertex Gemini model: service-account token from the mock token endpoint, then the regional generateContent', async () => {
    upstream.reply(json(readFixture('vertex', 'token.json')));
    upstream.reply(json(readFixture('vertex', 'gemini-generate.json')));
    const completion = await client.chat.completions.create(ask('gemini-2.5-flash'));
    expect(completion.choices[0]!.message.content).toBe('Bonjour !');
    expect(completion.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 3 });
    const [token, generate] = upstream.requests.slice(-2);
    expect(token!.url).toBe('/token');
    expect(token!.rawBody.toString()).toContain('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer');
    expect(generate!.url).toBe(
      '/v1/projects/demo-project/locations/europe-west1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(generate!.headers.authorization).toBe('Bearer ya29.c.vertex-test-token-1');
    const state = await billedState(server.ctx, { ...caller, channelId: channels.vertex! });
    expect(state.logs[0]).toMatchObject({ model_name: 'gemini-2.5-flash', prompt_tokens: 6, completion_tokens: 3 });
  });

  it('Vertex Claude model: rawPredict / streamRawPredict with the cached token, Messages converted', async () => {
    upstream.reply(json(readFixture('vertex', 'claude-message.json')));
    const completion = await client.chat.completions.create(ask('claude-sonnet-4@20250514'));
    expect(completion.choices[0]!.message.content).toBe('Hello from Vertex.');
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe(
      '/v1/projects/demo-project/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
    );
    expect(sent.headers.authorization).toBe('Bearer ya29.c.vertex-test-token-1');
    expect(sent.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', messages: [{ role: 'user' }] });
    expect(sent.json.model).toBeUndefined();

    upstream.reply(sse(readFixture('vertex', 'claude-stream.chunks.txt')));
    const { text, usage } = await collect(
      await client.chat.completions.create({ ...ask('claude-sonnet-4@20250514'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('Hi there.');
    expect(usage?.completion_tokens).toBe(4);
    expect(upstream.requests.at(-1)!.url).toContain(':streamRawPredict');
  });

  it('PaLM2: a streaming client on the non-streaming generateMessage gets the whole answer as chunks', async () => {
    upstream.reply(json(readFixture('palm', 'generate-message.json')));
    const { text, usage, roles } = await collect(
      await client.chat.completions.create({ ...ask('chat-bison-001'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('Paris is the capital of France.');
    expect(roles[0]).toBe('assistant');
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1beta2/models/chat-bison-001:generateMessage');
    expect(sent.json.prompt.messages).toEqual([{ author: '0', content: 'Hello' }]);
    const state = await billedState(server.ctx, { ...caller, channelId: channels.palm! });
    expect(state.logs[0]).toMatchObject({ is_stream: 1, completion_tokens: usage!.completion_tokens });
  });

  it('Dify chat app: streaming chat-messages converted to OpenAI chunks with Dify usage', async () => {
    const events = [
      { event: 'message', task_id: 't-1', message_id: 'm-1', conversation_id: 'c-1', answer: 'Hi', created_at: 1705407629 },
      { event: 'message', task_id: 't-1', message_id: 'm-1', conversation_id: 'c-1', answer: ' Ann', created_at: 1705407629 },
      {
        event: 'message_end',
        task_id: 't-1',
        id: 'm-1',
        message_id: 'm-1',
        conversation_id: 'c-1',
        metadata: { usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 } },
      },
    ];
    upstream.reply(sse(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')));
    const { text, usage } = await collect(
      await client.chat.completions.create({ ...ask('dify-chat'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('Hi Ann');
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 2 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/chat-messages');
    expect(sent.headers.authorization).toBe('Bearer app-chat');
    expect(sent.json).toMatchObject({ query: 'Hello', response_mode: 'streaming' });
  });

  it('Dify agent app: a non-stream client gets the aggregate of the stream the agent must use', async () => {
    upstream.reply(sse(readFixture('dify', 'chat-stream.chunks.txt')));
    const completion = await client.chat.completions.create(ask('dify-agent'));
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBe('Hello world');
    expect(completion.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 3 });
    expect(upstream.requests.at(-1)!.json.response_mode).toBe('streaming');
    const state = await billedState(server.ctx, { ...caller, channelId: channels.difyAgent! });
    expect(state.logs[0]).toMatchObject({ prompt_tokens: 40, completion_tokens: 3, is_stream: 0 });
  });

  it('Cohere chat: v1/chat converted, non-stream and NDJSON stream', async () => {
    upstream.reply(json(readFixture('cohere', 'chat.json')));
    const completion = await client.chat.completions.create(ask('command-r'));
    expect(completion.choices[0]!.message.content).toBe('Paris is the capital of France.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 31, completion_tokens: 7 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/chat');
    expect(sent.json).toMatchObject({ model: 'command-r', message: 'Hello' });

    upstream.reply({ status: 200, contentType: 'application/stream+json', body: readFixture('cohere', 'chat-stream.chunks.txt') });
    const { text, usage } = await collect(
      await client.chat.completions.create({ ...ask('command-r'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('Paris it is.');
    expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 3 });
  });
});
