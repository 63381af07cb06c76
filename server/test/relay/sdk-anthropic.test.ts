import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, quotaOfLog } from './sdk-setup.js';

/** The official Anthropic SDK against ModelGate's /v1/messages, on a Claude channel and an OpenAI channel. */
describe('@anthropic-ai/sdk → /v1/messages', () => {
  let server: TestServer;
  let claude: FixtureUpstream;
  let openai: MockOpenAi;
  let client: Anthropic;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let claudeChannel: number;
  let openAiChannel: number;

  beforeAll(async () => {
    server = await startTestServer();
    claude = await startFixtureUpstream();
    openai = await startMockOpenAi();
    caller = await createSdkCaller(server.ctx);
    claudeChannel = await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant-channel',
      baseURL: claude.url,
      models: ['claude-sonnet-4-20250514'],
    });
    openAiChannel = await createRelayChannel(server.ctx, { type: 1, key: 'healthy', baseURL: openai.url, models: ['gpt-4o-mini'] });
    client = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await claude.close();
    await openai.close();
  });

  it('Claude channel, non-stream: passed through natively; cache reads and writes billed with their own ratios', async () => {
    claude.reply({ status: 200, contentType: 'application/json', body: readFixture('anthropic', 'chat-response.json') });
    const message = await client.messages.create(
      {
        model: 'claude-sonnet-4-20250514',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
      },
      { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } },
    );
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(message.content[1]).toMatchObject({ type: 'text', text: 'Let me check the weather in Paris.' });
    expect(message.usage).toMatchObject({
      input_tokens: 120,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 200,
      output_tokens: 85,
    });
    const sent = claude.requests.at(-1)!;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-channel');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(sent.json).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });

    const state = await billedState(server.ctx, { ...caller, channelId: claudeChannel });
    const log = state.logs[0]!;
    expect(log.prompt_tokens).toBe(120 + 1000 + 200);
    expect(log.completion_tokens).toBe(85);
    expect(log.other).toMatchObject({
      cache_tokens: 1000,
      cache_ratio: 0.1,
      cache_creation_tokens: 200,
      cache_creation_ratio: 1.25,
      claude: true,
      model_ratio: 1.5,
      completion_ratio: 5,
    });
    // 1.5 × (1320 − 1000 − 200 + 1000 × 0.1 + 200 × 1.25 + 85 × 5) = 1.5 × 895
    expect(log.quota).toBe(Math.round(1.5 * 895));
    expect(log.quota).toBe(quotaOfLog(log, log.other));
    expect(state.userUsed).toBe(log.quota);
    expect(state.tokenUsed).toBe(log.quota);
    expect(state.channelUsed).toBe(log.quota);
  });

  it('Claude channel, stream: native events reach the SDK; usage from message_start + the last message_delta', async () => {
    claude.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('anthropic', 'chat-stream.chunks.txt') });
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts.join('')).toBe('Checking now.');
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect(claude.requests.at(-1)!.json.stream).toBe(true);
    const state = await billedState(server.ctx, { ...caller, channelId: claudeChannel });
    const log = state.logs[0]!;
    expect(log.is_stream).toBe(1);
    expect(log.prompt_tokens).toBe(42 + 300 + 10);
    expect(log.completion_tokens).toBe(message.usage.output_tokens);
    expect(log.other).toMatchObject({ cache_tokens: 300, cache_creation_tokens: 10, claude: true });
    expect(log.quota).toBe(quotaOfLog(log, log.other));
    expect(state.channelUsed).toBe(state.logs.reduce((sum, row) => sum + row.quota, 0));
  });

  it('OpenAI channel, non-stream: converted both ways', async () => {
    const message = await client.messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      system: 'Be brief.',
      top_k: 5,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(message.type).toBe('message');
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the mock upstream.' }]);
    expect(message.stop_reason).toBe('end_turn');
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ]);
    expect(sent.body.top_k).toBeUndefined();
    expect(message.usage.input_tokens).toBe(7 + Math.ceil('Say hello'.length / 4));
    expect(message.usage.output_tokens).toBe(6);
    const state = await billedState(server.ctx, { ...caller, channelId: openAiChannel });
    expect(state.logs[0]!.model_name).toBe('gpt-4o-mini');
    expect(state.logs[0]!.quota).toBe(quotaOfLog(state.logs[0]!, state.logs[0]!.other));
    expect(state.channelUsed).toBe(state.logs[0]!.quota);
  });

  it('OpenAI channel, stream: OpenAI chunks re-encoded as Anthropic events, billed once', async () => {
    const stream = client.messages.stream({ model: 'gpt-4o-mini', max_tokens: 6, messages: [{ role: 'user', content: 'Stream please' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts.join('')).toBe('Hello from the mock upstream.');
    expect(message.usage.output_tokens).toBe(6);
    expect(openai.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    const state = await billedState(server.ctx, { ...caller, channelId: openAiChannel });
    const streamed = state.logs.filter((row) => row.channel_id === openAiChannel);
    expect(streamed).toHaveLength(2);
    expect(streamed[0]!.is_stream).toBe(1);
    expect(streamed[0]!.completion_tokens).toBe(6);
    expect(state.channelUsed).toBe(streamed.reduce((sum, row) => sum + row.quota, 0));
  });

  it('errors come back Anthropic-shaped (unknown key → 401 authentication_error)', async () => {
    const bad = new Anthropic({ apiKey: 'sk-nope', baseURL: server.url, maxRetries: 0 });
    const error = await bad.messages
      .create({ model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
  });
});
