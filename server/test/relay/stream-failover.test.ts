import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';

const sse = (body: string) => ({ status: 200, contentType: 'text/event-stream', body });
const claudeEvent = (event: Record<string, unknown>) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
const messageStart = claudeEvent({
  type: 'message_start',
  message: {
    id: 'msg_x',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-20250514',
    content: [],
    usage: { input_tokens: 12, output_tokens: 1 },
  },
});
const overloadedEvent = claudeEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });

/** Streams that fail before their first byte reaches the client fail over; after it they end with an error. */
describe('streaming failover before the first byte', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let userId: number;
  let apiKey: string;
  const channel = (type: number, model: string, priority: number) =>
    createRelayChannel(server.ctx, {
      type,
      key: `key-${model}-${priority}`,
      baseURL: upstream.url,
      models: [model],
      priority,
      autoBan: false,
    });
  const lastLog = async () => {
    await flushRelay(server.ctx);
    const log = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return { ...log, other: JSON.parse(log.other) as { admin_info: { use_channel: string[] } } };
  };
  async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  }
  const streamChat = (model: string, key = apiKey) =>
    new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 }).chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Hello' }],
    });

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    await setOption(server.ctx, 'RetryTimes', '2');
    userId = await createRelayUser(server.ctx, { quota: 100_000_000, role: 100 });
    apiKey = (await createRelayToken(server.ctx, userId, { remainQuota: 50_000_000 })).apiKey;
    client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('Claude overloaded_error event right after message_start → the next channel serves the stream', async () => {
    const failing = await channel(14, 'claude-a', 10);
    const healthy = await channel(14, 'claude-a', 0);
    upstream.reply(sse(messageStart + overloadedEvent));
    upstream.reply(sse(readFixture('anthropic', 'chat-stream.chunks.txt')));
    const before = upstream.requests.length;
    expect(await collect(await streamChat('claude-a'))).toBe('Checking now.');
    expect(upstream.requests.length).toBe(before + 2);
    const log = await lastLog();
    expect(log.channel_id).toBe(healthy);
    expect(log.other.admin_info.use_channel).toEqual([String(failing), String(healthy)]);
  });

  it('HTTP 529 at the start of a Claude stream and a Gemini error event first both fail over', async () => {
    await channel(14, 'claude-b', 10);
    const claudeHealthy = await channel(14, 'claude-b', 0);
    upstream.reply({ status: 529, contentType: 'application/json', body: readFixture('anthropic', 'error-overloaded.json') });
    upstream.reply(sse(readFixture('anthropic', 'chat-stream.chunks.txt')));
    expect(await collect(await streamChat('claude-b'))).toBe('Checking now.');
    expect((await lastLog()).channel_id).toBe(claudeHealthy);

    const geminiFailing = await channel(24, 'gemini-c', 10);
    const geminiHealthy = await channel(24, 'gemini-c', 0);
    upstream.reply(sse('data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\n\n'));
    upstream.reply(sse(readFixture('gemini', 'stream-text.chunks.txt')));
    expect(await collect(await streamChat('gemini-c'))).toBe('Crisp leaves drift and fall.');
    const log = await lastLog();
    expect(log.channel_id).toBe(geminiHealthy);
    expect(log.other.admin_info.use_channel).toEqual([String(geminiFailing), String(geminiHealthy)]);
  });

  it('a pinned channel is not retried: the client gets the upstream error as a normal error response', async () => {
    const pinned = await channel(14, 'claude-d', 10);
    await channel(14, 'claude-d', 0);
    upstream.reply(sse(messageStart + overloadedEvent));
    const before = upstream.requests.length;
    const error = await streamChat('claude-d', `${apiKey}-${pinned}`)
      .then(collect)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain(
      'The upstream service failed. Please try again later or contact the administrator',
    );
    expect(upstream.requests.length).toBe(before + 1);
  });

  it('after bytes reached the client: no retry, an OpenAI error event ends the stream, the produced part is billed', async () => {
    const only = await channel(14, 'claude-e', 10);
    await channel(14, 'claude-e', 0);
    upstream.reply(sse(readFixture('anthropic', 'stream-error.chunks.txt')));
    const before = upstream.requests.length;
    const raw = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-e', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(raw.status).toBe(200);
    const text = await raw.text();
    expect(text).toContain('"content":"Hel"');
    expect(text).toMatch(/data: \{"error":\{"message":"[^"]*","type":"[a-z_]+","param":null,"code":"[a-z_]+"\}\}\n\ndata: \[DONE\]\n\n$/);
    // The openai client surfaces the error event as an APIError after the text it already yielded.
    upstream.reply(sse(readFixture('anthropic', 'stream-error.chunks.txt')));
    let seen = '';
    const failure = await (async () => {
      for await (const chunk of await client.chat.completions.create({
        model: 'claude-e',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      })) {
        seen += chunk.choices[0]?.delta?.content ?? '';
      }
    })().catch((caught: unknown) => caught);
    expect(seen).toBe('Hel');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain('The upstream service failed. Please try again later or contact the administrator');
    expect(upstream.requests.length).toBe(before + 2);
    const log = await lastLog();
    expect(log.channel_id).toBe(only);
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(log.prompt_tokens).toBe(12);
  });

  it('an Anthropic client on a native pass-through gets an Anthropic error event after its first bytes', async () => {
    await channel(14, 'claude-f', 0);
    upstream.reply(sse(readFixture('anthropic', 'stream-error.chunks.txt')));
    const raw = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-f', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const text = await raw.text();
    expect(text).toContain('"text":"Hel"');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"[^"]+"\}\}\n\n$/);
  });

  const openAiChunk = (content: string, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-ok', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra })}\n\n`;
  const openAiStream = `${openAiChunk('Hi')}${openAiChunk(' there')}data: ${JSON.stringify({ id: 'chatcmpl-ok', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } })}\n\ndata: [DONE]\n\n`;
  const errorEvent = (code: unknown) =>
    `: OPENROUTER PROCESSING\n\ndata: ${JSON.stringify({ error: { message: 'Provider returned error', code } })}\n\n`;

  it('OpenAI wire: a 200 stream whose first event is an error fails over before any byte reaches the client', async () => {
    const failing = await channel(1, 'gpt-or', 10);
    const healthy = await channel(1, 'gpt-or', 0);
    upstream.reply(sse(errorEvent(502)));
    upstream.reply(sse(openAiStream));
    const before = upstream.requests.length;
    expect(await collect(await streamChat('gpt-or'))).toBe('Hi there');
    expect(upstream.requests.length).toBe(before + 2);
    const log = await lastLog();
    expect(log.channel_id).toBe(healthy);
    expect(log.other.admin_info.use_channel).toEqual([String(failing), String(healthy)]);
    expect([log.prompt_tokens, log.completion_tokens]).toEqual([9, 2]);
  });

  it('OpenAI wire: when every channel fails that way the client gets a normal error response, and nothing is billed', async () => {
    await channel(1, 'gpt-bad', 10);
    await channel(1, 'gpt-bad', 0);
    upstream.reply(sse(errorEvent(502)));
    upstream.reply(sse(errorEvent('server_error')));
    const logsBefore = await server.ctx.storage.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('model_name', '=', 'gpt-bad')
      .executeTakeFirstOrThrow();
    const raw = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-bad', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(raw.status).toBe(502);
    expect(raw.headers.get('content-type')).toContain('application/json');
    expect(await raw.json()).toEqual({
      error: {
        message: 'The upstream service is unavailable. Please try again later',
        type: 'upstream_error',
        param: null,
        code: 'upstream_unreachable',
      },
    });
    await flushRelay(server.ctx);
    const logsAfter = await server.ctx.storage.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('model_name', '=', 'gpt-bad')
      .where('type', '=', 2)
      .executeTakeFirstOrThrow();
    expect(Number(logsAfter.n)).toBe(0);
    expect(Number(logsBefore.n)).toBe(0);
  });

  it('OpenAI wire: an error event after the first content chunk is passed on, classified and redacted (no retry) and the stream ends with [DONE]', async () => {
    const only = await channel(1, 'gpt-late', 10);
    await channel(1, 'gpt-late', 0);
    upstream.reply(sse(`${openAiChunk('Par')}${errorEvent(502)}`));
    const before = upstream.requests.length;
    const raw = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-late', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(raw.status).toBe(200);
    const text = await raw.text();
    expect(text).toBe(
      `${openAiChunk('Par')}data: ${JSON.stringify({ error: { message: 'The upstream service failed. Please try again later or contact the administrator', type: 'upstream_error', param: null, code: 'upstream_error' } })}\n\ndata: [DONE]\n\n`,
    );
    expect(upstream.requests.length).toBe(before + 1);
    expect((await lastLog()).channel_id).toBe(only);
  });
});
