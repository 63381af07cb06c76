import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

/**
 * Converted /v1/messages answers say which stop sequence ended them (OpenAI and Gemini upstreams never
 * do): the gateway applies the sequences itself, stream and not, and bills what was produced.
 */
describe('stop_sequence on converted Anthropic answers', () => {
  let server: TestServer;
  let openAiWire: MockOpenAi;
  let fixtures: FixtureUpstream;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};

  beforeAll(async () => {
    server = await startTestServer();
    openAiWire = await startMockOpenAi();
    fixtures = await startFixtureUpstream();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-stop': 1, 'gemini-2.5-flash': 1 }));
    caller = await createSdkCaller(server.ctx);
    channels.openai = await createRelayChannel(server.ctx, { type: 1, key: 'sk-upstream', baseURL: openAiWire.url, models: ['gpt-stop'] });
    channels.gemini = await createRelayChannel(server.ctx, { type: 24, key: 'AIza', baseURL: fixtures.url, models: ['gemini-2.5-flash'] });
  });
  afterAll(async () => {
    await server?.stop();
    await openAiWire?.close();
    await fixtures?.close();
  });

  const anthropic = () => new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
  const ask = { model: 'gpt-stop', max_tokens: 200, messages: [{ role: 'user' as const, content: 'Talk for a long while please' }] };

  it('non-stream on an OpenAI channel: the text before the sequence, stop_reason stop_sequence, the upstream asked without it and cut short', async () => {
    const message = await anthropic().messages.create({ ...ask, stop_sequences: ['never', 'mock'] });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the ', citations: null }].map(({ citations: _c, ...block }) => expect.objectContaining(block)));
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('mock');
    const sent = openAiWire.requests.at(-1)!.body;
    expect(sent.stop).toBeUndefined();
    expect(sent.stream).toBe(true);
    // Billed what was produced: the prompt counted here, at least the text streamed before the cut (not the 200 pieces asked).
    const state = await billedState(server.ctx, { ...caller, channelId: channels.openai! });
    expect(state.logs[0]!.prompt_tokens).toBeGreaterThan(0);
    expect(state.logs[0]!.completion_tokens).toBeGreaterThan(0);
    expect(state.logs[0]!.completion_tokens).toBeLessThan(20);
    expect(message.usage.output_tokens).toBe(state.logs[0]!.completion_tokens);
  });

  it('streamed: a sequence split across upstream chunks is still found (its start held back), and message_delta names it', async () => {
    const events: any[] = [];
    const stream = anthropic().messages.stream({ ...ask, stop_sequences: ['the mo'] });
    for await (const event of stream) events.push(event);
    const final = await stream.finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from ' })]);
    const text = events.filter((event) => event.type === 'content_block_delta').map((event) => event.delta.text).join('');
    expect(text).toBe('Hello from ');
    const delta = events.find((event) => event.type === 'message_delta');
    expect(delta.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'the mo' });
    expect(events.at(-1).type).toBe('message_stop');
  });

  it('a held-back start that does not complete the sequence goes out; no match ends as end_turn with the whole text', async () => {
    const message = await anthropic().messages.create({ model: 'gpt-stop', max_tokens: 6, messages: ask.messages, stop_sequences: ['mockery'] });
    expect(message.content).toEqual([expect.objectContaining({ text: 'Hello from the mock upstream.' })]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.stop_sequence).toBeNull();
    // The upstream's own usage is billed when the stream ran to its end.
    const state = await billedState(server.ctx, { ...caller, channelId: channels.openai! });
    expect(state.logs[0]!.completion_tokens).toBe(6);
  });

  it('on a Gemini channel, stream and not: streamGenerateContent without stopSequences, cut at the sequence', async () => {
    fixtures.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    const message = await anthropic().messages.create({ model: 'gemini-2.5-flash', max_tokens: 64, messages: ask.messages, stop_sequences: ['fall'] });
    expect(message.content.filter((block) => block.type === 'text')).toEqual([expect.objectContaining({ text: 'Crisp leaves drift and ' })]);
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'fall' });
    const sent = fixtures.requests.at(-1)!;
    expect(sent.url).toContain(':streamGenerateContent');
    expect(sent.json.generationConfig?.stopSequences).toBeUndefined();

    fixtures.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    const events: any[] = [];
    for await (const event of anthropic().messages.stream({ model: 'gemini-2.5-flash', max_tokens: 64, messages: ask.messages, stop_sequences: ['leaves'] })) events.push(event);
    expect(events.filter((event) => event.type === 'content_block_delta' && event.delta.type === 'text_delta').map((event) => event.delta.text).join('')).toBe('Crisp ');
    expect(events.find((event) => event.type === 'message_delta').delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'leaves' });
  });
});
