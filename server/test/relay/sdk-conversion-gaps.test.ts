import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

const sse = (body: string) => ({ status: 200, contentType: 'text/event-stream', body });
const json = (body: string) => ({ status: 200, contentType: 'application/json', body });

/** What format conversion used to drop silently: each case checks what the client got, what the upstream received, and the bill. */
describe('conversions that must not drop what was asked', () => {
  let server: TestServer;
  let openAiWire: MockOpenAi;
  let fixtures: FixtureUpstream;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};

  beforeAll(async () => {
    server = await startTestServer();
    openAiWire = await startMockOpenAi();
    fixtures = await startFixtureUpstream();
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ 'gpt-conv': 1, 'gemini-2.0-flash': 1, 'claude-conv': 1, 'text-embedding-004': 1 }),
    );
    caller = await createSdkCaller(server.ctx);
    channels.openai = await createRelayChannel(server.ctx, { type: 1, key: 'sk-upstream', baseURL: openAiWire.url, models: ['gpt-conv'] });
    channels.gemini = await createRelayChannel(server.ctx, {
      type: 24,
      key: 'AIza',
      baseURL: fixtures.url,
      models: ['gemini-2.0-flash', 'text-embedding-004'],
    });
    channels.claude = await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant', baseURL: fixtures.url, models: ['claude-conv'] });
  });
  afterAll(async () => {
    await server?.stop();
    await openAiWire?.close();
    await fixtures?.close();
  });

  const anthropic = () => new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });

  it('a converted Anthropic stream states the prompt tokens in message_start (OpenAI channel), and anthropic-beta stays off non-Claude upstreams', async () => {
    const events: any[] = [];
    const stream = anthropic().messages.stream(
      { model: 'gpt-conv', max_tokens: 64, messages: [{ role: 'user', content: 'Please say hello to the whole wide world today' }] },
      { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } },
    );
    for await (const event of stream) events.push(event);
    const final = await stream.finalMessage();
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(types.filter((type) => type === 'content_block_delta').length).toBeGreaterThan(0);
    const start = events[0].message.usage.input_tokens;
    expect(start).toBeGreaterThan(0);
    // The local count is close to the upstream's (the mock's own formula), which the final usage carries.
    expect(Math.abs(start - final.usage.input_tokens)).toBeLessThanOrEqual(15);
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('Hello') })]);
    const sent = openAiWire.requests.at(-1)!;
    expect(sent.headers['anthropic-beta']).toBeUndefined();
    expect(sent.headers['anthropic-version']).toBeUndefined();
    const state = await billedState(server.ctx, { ...caller, channelId: channels.openai! });
    expect(state.logs[0]!.prompt_tokens).toBe(final.usage.input_tokens);
  });

  it('a converted Anthropic stream on a Gemini channel states the prompt tokens too', async () => {
    fixtures.reply(sse(readFixture('gemini', 'stream-text.chunks.txt')));
    const events: any[] = [];
    for await (const event of anthropic().messages.stream(
      { model: 'gemini-2.0-flash', max_tokens: 64, messages: [{ role: 'user', content: 'Count to three for me' }] },
      { headers: { 'anthropic-beta': 'tools-2024-04-04' } },
    ))
      events.push(event);
    expect(events[0]).toMatchObject({ type: 'message_start' });
    expect(events[0].message.usage.input_tokens).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: 'message_stop' });
    expect(fixtures.requests.at(-1)!.headers['anthropic-beta']).toBeUndefined();
  });

  it("logprobs on Claude channels, which have none: a 400 naming the parameter, in the caller's format, nothing billed", async () => {
    // n > 1 on Claude channels fans out to n calls (fan-out.test.ts).
    const before = fixtures.requests.length;
    const logprobs = await openai()
      .chat.completions.create({ model: 'claude-conv', logprobs: true, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect((logprobs as Error).message).toContain('logprobs');
    expect(logprobs).toBeInstanceOf(OpenAI.BadRequestError);
    // Gemini channels now honour logprobs (gemini-logprobs-tools.test.ts).
    // A Gemini client asking a Claude channel for log probabilities gets a Gemini-shaped 400.
    const res = await fetch(`${server.url}/v1beta/models/claude-conv:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': caller.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { responseLogprobs: true } }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.message).toContain('logprobs');
    expect(fixtures.requests.length).toBe(before);
    expect((await billedState(server.ctx, { ...caller, channelId: channels.claude! })).logs).toHaveLength(0);
  });

  it("Gemini-channel embeddings with the openai client's default base64: the vectors survive, and usage.prompt_tokens is reported", async () => {
    fixtures.reply(json(readFixture('gemini', 'embeddings.json')));
    const result = await openai().embeddings.create({ model: 'text-embedding-004', input: ['first text', 'second text'] });
    expect(result.data.map((item) => Array.from(item.embedding, (value) => Number(value.toFixed(4))))).toEqual([
      [0.0123, -0.0456, 0.0789],
      [0.5, 0.25, -0.125],
    ]);
    expect(result.usage.prompt_tokens).toBeGreaterThan(0);
    const state = await billedState(server.ctx, { ...caller, channelId: channels.gemini! });
    expect(state.logs[0]!.prompt_tokens).toBe(result.usage.prompt_tokens);
  });
});
