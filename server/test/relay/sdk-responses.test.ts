import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, quotaOfLog } from './sdk-setup.js';

const nativeResponse = {
  id: 'resp_native1',
  object: 'response',
  created_at: 1730000000,
  status: 'completed',
  model: 'gpt-4o-mini',
  output: [
    {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Native hello.', annotations: [] }],
    },
  ],
  usage: {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 8 },
    output_tokens: 3,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 23,
  },
};

const claudeText = {
  id: 'msg_text',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-20250514',
  content: [{ type: 'text', text: 'Converted hello.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 11, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 4 },
};

/** The openai client's Responses API: native on an OpenAI channel, converted on a Claude channel. */
describe('openai client → /v1/responses', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let openAiChannel: number;
  let claudeChannel: number;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    caller = await createSdkCaller(server.ctx);
    openAiChannel = await createRelayChannel(server.ctx, { type: 1, key: 'sk-openai', baseURL: upstream.url, models: ['gpt-4o-mini'] });
    claudeChannel = await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant',
      baseURL: upstream.url,
      models: ['claude-sonnet-4-20250514'],
    });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('OpenAI channel: passed through to {base}/v1/responses, usage read from the native answer', async () => {
    upstream.reply({ status: 200, contentType: 'application/json', body: JSON.stringify(nativeResponse) });
    const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hello', instructions: 'Be brief.' });
    expect(response.output_text).toBe('Native hello.');
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe('Bearer sk-openai');
    expect(sent.json).toMatchObject({ model: 'gpt-4o-mini', input: 'Hello', instructions: 'Be brief.' });
    const state = await billedState(server.ctx, { ...caller, channelId: openAiChannel });
    const log = state.logs[0]!;
    expect([log.prompt_tokens, log.completion_tokens, log.other.cache_tokens]).toEqual([20, 3, 8]);
    expect(log.quota).toBe(quotaOfLog(log, log.other));
    expect(state.channelUsed).toBe(log.quota);
  });

  it('OpenAI channel, stream: native events relayed; usage from response.completed', async () => {
    const events = [
      { type: 'response.created', sequence_number: 0, response: { ...nativeResponse, status: 'in_progress', output: [], usage: null } },
      { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Native ' },
      { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'hello.' },
      { type: 'response.completed', sequence_number: 3, response: nativeResponse },
    ];
    upstream.reply({
      status: 200,
      contentType: 'text/event-stream',
      body: events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''),
    });
    const stream = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hello', stream: true });
    let text = '';
    let completed: any = null;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('Native hello.');
    expect(completed.usage.input_tokens).toBe(20);
    const state = await billedState(server.ctx, { ...caller, channelId: openAiChannel });
    expect(state.logs[0]!.is_stream).toBe(1);
    expect([state.logs[0]!.prompt_tokens, state.logs[0]!.completion_tokens]).toEqual([20, 3]);
  });

  it('Claude channel: converted to a Messages request and back, stream included', async () => {
    upstream.reply({ status: 200, contentType: 'application/json', body: JSON.stringify(claudeText) });
    const response = await client.responses.create({ model: 'claude-sonnet-4-20250514', input: 'Hello', max_output_tokens: 100 });
    expect(response.output_text).toBe('Converted hello.');
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 4 });
    expect(upstream.requests.at(-1)!.url).toBe('/v1/messages');
    expect(upstream.requests.at(-1)!.json).toMatchObject({ max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] });

    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('anthropic', 'chat-stream.chunks.txt') });
    const stream = await client.responses.create({ model: 'claude-sonnet-4-20250514', input: 'Weather?', stream: true });
    let text = '';
    let completed: any = null;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('Checking now.');
    expect(completed.usage.input_tokens).toBe(42 + 300 + 10);
    const state = await billedState(server.ctx, { ...caller, channelId: claudeChannel });
    expect(state.logs).toHaveLength(2);
    for (const log of state.logs) expect(log.quota).toBe(quotaOfLog(log, log.other));
    expect(state.logs[0]!.other).toMatchObject({ cache_tokens: 300, cache_creation_tokens: 10, claude: true });
    expect(state.channelUsed).toBe(state.logs[0]!.quota + state.logs[1]!.quota);
  });
});
