import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { bedrockChunkFrame } from '../providers/helpers/aws-event-stream-encoder.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, collect, createSdkCaller } from './sdk-setup.js';

const json = (body: string) => ({ status: 200, contentType: 'application/json', body });
const sse = (body: string) => ({ status: 200, contentType: 'text/event-stream', body });

/** The official openai client's chat completions served by non-OpenAI channels (converted). */
describe('openai client → /v1/chat/completions on Claude, Gemini, Azure, Ollama and Bedrock channels', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    caller = await createSdkCaller(server.ctx);
    const { ctx } = server;
    channels.claude = await createRelayChannel(ctx, {
      type: 14,
      key: 'sk-ant',
      baseURL: upstream.url,
      models: ['claude-sonnet-4-20250514'],
    });
    channels.gemini = await createRelayChannel(ctx, { type: 24, key: 'AIza', baseURL: upstream.url, models: ['gemini-2.5-flash'] });
    channels.azure = await createRelayChannel(ctx, { type: 3, key: 'azure-key', baseURL: upstream.url, models: ['gpt-3.5-turbo'] });
    channels.ollama = await createRelayChannel(ctx, { type: 4, key: '', baseURL: upstream.url, models: ['llama3.1'] });
    channels.bedrock = await createRelayChannel(ctx, {
      type: 33,
      key: 'AKIDEXAMPLE|secret-key|us-east-1',
      baseURL: upstream.url,
      models: ['claude-3-5-sonnet-20241022'],
    });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('Claude: Messages request built upstream; answer and stream converted, usage chunk added on request', async () => {
    upstream.reply(json(readFixture('anthropic', 'chat-response.json')));
    const completion = await client.chat.completions.create({
      model: 'claude-sonnet-4-20250514',
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Let me check the weather in Paris.');
    expect(completion.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather' } });
    expect(completion.usage).toMatchObject({ prompt_tokens: 1320, completion_tokens: 85 });
    expect(upstream.requests.at(-1)!.url).toBe('/v1/messages');

    upstream.reply(sse(readFixture('anthropic', 'chat-stream.chunks.txt')));
    const stream = await client.chat.completions.create({
      model: 'claude-sonnet-4-20250514',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    const { text, usage } = await collect(stream);
    expect(text).toBe('Checking now.');
    expect(usage?.prompt_tokens).toBe(42 + 300 + 10);
    const state = await billedState(server.ctx, { ...caller, channelId: channels.claude! });
    expect(state.logs[0]!.prompt_tokens).toBe(352);
    expect(state.logs[0]!.other.cache_creation_tokens).toBe(10);
  });

  it('Gemini: generateContent built upstream; answer and stream converted', async () => {
    upstream.reply(json(readFixture('gemini', 'generate-text.json')));
    const completion = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Haiku' }] });
    expect(completion.choices[0]!.message.content).toBe('Crisp leaves drift and fall,');
    expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 59 });
    expect(upstream.requests.at(-1)!.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');

    upstream.reply(sse(readFixture('gemini', 'stream-text.chunks.txt')));
    const { text, usage } = await collect(
      await client.chat.completions.create({
        model: 'gemini-2.5-flash',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Haiku' }],
      }),
    );
    expect(text).toBe('Crisp leaves drift and fall.');
    expect(usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 19 });
  });

  it('Azure: deployment URL with the client api-version, OpenAI body and stream passed through', async () => {
    upstream.reply(json(readFixture('azure', 'chat.json')));
    const completion = await client.chat.completions.create(
      { model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'Hi' }] },
      { query: { 'api-version': '2024-10-21' } },
    );
    expect(completion.choices[0]!.message.content).toBe('Hello from Azure.');
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe('azure-key');

    upstream.reply(sse(readFixture('azure', 'chat-stream.chunks.txt')));
    const { text } = await collect(
      await client.chat.completions.create({ model: 'gpt-3.5-turbo', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(text).toBe('Hi there');
    const state = await billedState(server.ctx, { ...caller, channelId: channels.azure! });
    expect(state.logs[1]!.other.cache_tokens).toBe(2);
  });

  it('Ollama: native /api/chat, NDJSON stream converted to OpenAI chunks', async () => {
    upstream.reply(json(readFixture('ollama', 'chat.json')));
    const completion = await client.chat.completions.create({ model: 'llama3.1', messages: [{ role: 'user', content: 'Sky?' }] });
    expect(completion.choices[0]!.message.content).toBe('The sky is blue.');
    expect(upstream.requests.at(-1)!.url).toBe('/api/chat');
    expect(upstream.requests.at(-1)!.json).toMatchObject({ model: 'llama3.1', stream: false });

    upstream.reply({ status: 200, contentType: 'application/x-ndjson', body: readFixture('ollama', 'chat-stream.chunks.txt') });
    const { text, usage } = await collect(
      await client.chat.completions.create({
        model: 'llama3.1',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Sky?' }],
      }),
    );
    expect(text).toBe('The sky is blue.');
    expect(usage).toMatchObject({ prompt_tokens: 26, completion_tokens: 4 });
  });

  it('Bedrock: SigV4-signed invoke, AWS event stream decoded and converted', async () => {
    upstream.reply(json(readFixture('aws-bedrock', 'invoke-response.json')));
    const completion = await client.chat.completions.create({
      model: 'claude-3-5-sonnet-20241022',
      messages: [{ role: 'user', content: 'Bonjour' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Bonjour! How can I help?');
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toMatch(/^\/model\/.+\/invoke$/);
    expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
    expect(sent.json.anthropic_version).toBe('bedrock-2023-05-31');

    const events = JSON.parse(readFixture('aws-bedrock', 'stream-events.json')) as unknown[];
    upstream.reply({
      status: 200,
      contentType: 'application/vnd.amazon.eventstream',
      body: Buffer.concat(events.map((event) => bedrockChunkFrame(event))),
    });
    const { text, usage } = await collect(
      await client.chat.completions.create({
        model: 'claude-3-5-sonnet-20241022',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Bonjour' }],
      }),
    );
    expect(upstream.requests.at(-1)!.url).toMatch(/\/invoke-with-response-stream$/);
    expect(text.startsWith('Bonjour')).toBe(true);
    expect(usage).toMatchObject({ prompt_tokens: 25 + 64, completion_tokens: 11 });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.bedrock! });
    expect(state.logs.map((row) => row.is_stream)).toEqual([1, 0]);
    expect(state.logs[0]!.other.cache_tokens).toBe(64);
  });
});
