import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

/**
 * Converted /v1/messages answers with stop sequences (OpenAI and Gemini upstreams never say which one
 * matched): the upstream is sent as many as it takes and stops by itself; the gateway scans for the
 * rest and names the match when it can tell. The bill is always the upstream's own usage.
 */
describe('stop sequences on converted Anthropic answers', () => {
  let server: TestServer;
  let openAiWire: MockOpenAi;
  let fixtures: FixtureUpstream;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};

  beforeAll(async () => {
    server = await startTestServer();
    openAiWire = await startMockOpenAi();
    fixtures = await startFixtureUpstream();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-stop': 1, 'gpt-5-stop': 1, 'gemini-2.5-flash': 1 }));
    caller = await createSdkCaller(server.ctx);
    channels.openai = await createRelayChannel(server.ctx, {
      type: 1,
      key: 'sk-upstream',
      baseURL: openAiWire.url,
      models: ['gpt-stop', 'gpt-5-stop'],
    });
    channels.gemini = await createRelayChannel(server.ctx, { type: 24, key: 'AIza', baseURL: fixtures.url, models: ['gemini-2.5-flash'] });
  });
  afterAll(async () => {
    await server?.stop();
    await openAiWire?.close();
    await fixtures?.close();
  });

  const anthropic = () => new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
  const ask = { model: 'gpt-stop', max_tokens: 200, messages: [{ role: 'user' as const, content: 'Talk for a long while please' }] };
  const latestBill = async (channel: 'openai' | 'gemini') =>
    (await billedState(server.ctx, { ...caller, channelId: channels[channel]! })).logs[0]!;
  const streamed = async (params: Parameters<Anthropic['messages']['stream']>[0]) => {
    const events: any[] = [];
    for await (const event of anthropic().messages.stream(params)) events.push(event);
    const text = events
      .filter((event) => event.type === 'content_block_delta' && event.delta.type === 'text_delta')
      .map((event) => event.delta.text)
      .join('');
    return { events, text, delta: events.find((event) => event.type === 'message_delta') };
  };

  it('sends one sequence to the OpenAI upstream, which stops by itself; its stop names the sequence and its usage is the bill', async () => {
    const message = await anthropic().messages.create({ ...ask, stop_sequences: ['mock'] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from the ' })]);
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'mock' });
    const sent = openAiWire.requests.at(-1)!.body;
    expect(sent.stop).toEqual(['mock']);
    expect(sent.stream).toBe(true);
    // The upstream generated 4 pieces (the fourth held the sequence) and reported them.
    const bill = await latestBill('openai');
    expect(bill.completion_tokens).toBe(4);
    expect(message.usage.output_tokens).toBe(4);

    const { text, delta, events } = await streamed({ ...ask, stop_sequences: ['mock'] });
    expect(text).toBe('Hello from the ');
    expect(delta.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'mock' });
    expect(delta.usage.output_tokens).toBe(4);
    expect(events.at(-1).type).toBe('message_stop');
    expect((await latestBill('openai')).completion_tokens).toBe(4);
  });

  it("with several sequences sent, the upstream's plain stop names none: end_turn, billed its usage", async () => {
    const message = await anthropic().messages.create({ ...ask, stop_sequences: ['never', 'mock'] });
    expect(message.content).toEqual([expect.objectContaining({ text: 'Hello from the ' })]);
    expect(message).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
    expect(openAiWire.requests.at(-1)!.body.stop).toEqual(['never', 'mock']);
    expect((await latestBill('openai')).completion_tokens).toBe(4);
  });

  it("a sequence past the upstream's four: the gateway cuts and names it, reads on unsent, and bills the upstream's usage", async () => {
    const stops = ['s1', 's2', 's3', 's4', 'upstream'];
    const message = await anthropic().messages.create({ ...ask, stop_sequences: stops });
    expect(message.content).toEqual([expect.objectContaining({ text: 'Hello from the mock ' })]);
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'upstream' });
    expect(openAiWire.requests.at(-1)!.body.stop).toEqual(['s1', 's2', 's3', 's4']);
    // The upstream produced all 200 pieces asked, and charged them: so does the gateway.
    expect((await latestBill('openai')).completion_tokens).toBe(200);
    expect(message.usage.output_tokens).toBe(200);

    const { text, delta } = await streamed({ ...ask, stop_sequences: stops });
    expect(text).toBe('Hello from the mock ');
    expect(delta.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'upstream' });
    expect(delta.usage.output_tokens).toBe(200);
    expect((await latestBill('openai')).completion_tokens).toBe(200);
  });

  it('a sequence split across upstream chunks is still found (its start held back)', async () => {
    const { text, delta } = await streamed({ ...ask, stop_sequences: ['s1', 's2', 's3', 's4', 'the mo'] });
    expect(text).toBe('Hello from ');
    expect(delta.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'the mo' });
  });

  it('a held-back start that does not complete a sequence goes out; no match ends as end_turn with the whole text', async () => {
    const message = await anthropic().messages.create({
      model: 'gpt-stop',
      max_tokens: 6,
      messages: ask.messages,
      stop_sequences: ['s1', 's2', 's3', 's4', 'mockery'],
    });
    expect(message.content).toEqual([expect.objectContaining({ text: 'Hello from the mock upstream.' })]);
    expect(message).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
    expect((await latestBill('openai')).completion_tokens).toBe(6);
  });

  it("sends none to an OpenAI reasoning model, which refuses stop: the gateway cuts, and bills the upstream's usage", async () => {
    const message = await anthropic().messages.create({ ...ask, model: 'gpt-5-stop', stop_sequences: ['mock'] });
    expect(message.content).toEqual([expect.objectContaining({ text: 'Hello from the ' })]);
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'mock' });
    const sent = openAiWire.requests.at(-1)!.body;
    expect(sent.model).toBe('gpt-5-stop');
    expect(sent.stop).toBeUndefined();
    // Sent as max_completion_tokens, which the mock does not read: it generates its 6 pieces, and charges them.
    expect(sent.max_completion_tokens).toBe(200);
    expect((await latestBill('openai')).completion_tokens).toBe(6);
  });

  it("on a Gemini channel, stream and not: up to five sent as stopSequences; a match in the text is cut and named; billed the upstream's usage", async () => {
    fixtures.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    const stops = ['g1', 'g2', 'g3', 'g4', 'g5', 'fall'];
    const message = await anthropic().messages.create({
      model: 'gemini-2.5-flash',
      max_tokens: 64,
      messages: ask.messages,
      stop_sequences: stops,
    });
    expect(message.content.filter((block) => block.type === 'text')).toEqual([
      expect.objectContaining({ text: 'Crisp leaves drift and ' }),
    ]);
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'fall' });
    const sent = fixtures.requests.at(-1)!;
    expect(sent.url).toContain(':streamGenerateContent');
    expect(sent.json.generationConfig?.stopSequences).toEqual(['g1', 'g2', 'g3', 'g4', 'g5']);
    // The fixture's usageMetadata: 7 candidates + 12 thoughts tokens, read on past the cut.
    const bill = await latestBill('gemini');
    expect(bill.completion_tokens).toBe(19);

    fixtures.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    const { text, delta } = await streamed({
      model: 'gemini-2.5-flash',
      max_tokens: 64,
      messages: ask.messages,
      stop_sequences: ['leaves'],
    });
    expect(text).toBe('Crisp ');
    expect(delta.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'leaves' });
    expect(fixtures.requests.at(-1)!.json.generationConfig?.stopSequences).toEqual(['leaves']);
    expect((await latestBill('gemini')).completion_tokens).toBe(19);
  });

  it("searches many sequences at once; more than 65,536 characters of them is a 400 in Anthropic's shape", async () => {
    const many = [...Array.from({ length: 8_000 }, (_, i) => `zz${i}.`), 'from the mo'];
    const message = await anthropic().messages.create({ ...ask, stop_sequences: many });
    expect(message.content).toEqual([expect.objectContaining({ text: 'Hello ' })]);
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'from the mo' });
    expect(openAiWire.requests.at(-1)!.body.stop).toEqual(many.slice(0, 4));

    const before = openAiWire.requests.length;
    const tooMany = Array.from({ length: 16_385 }, () => 'abcd');
    const refused = await anthropic()
      .messages.create({ ...ask, stop_sequences: tooMany })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('65536') },
    });
    expect(openAiWire.requests.length).toBe(before);
  });

  it('an upstream that breaks after the cut, before its usage: the answer still ends as answered, billed what was produced', async () => {
    // An OpenAI-wire upstream that ignores stop, sends the sequence, and drops the connection.
    const breaking = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const text of ['one two ', 'BREAK three', ' four']) {
          res.write(
            `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-break', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`,
          );
        }
        setTimeout(() => res.socket?.destroy(), 50);
      });
    });
    await new Promise<void>((resolve) => breaking.listen(0, '127.0.0.1', resolve));
    try {
      await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-stop': 1, 'gpt-5-stop': 1, 'gemini-2.5-flash': 1, 'gpt-break': 1 }));
      const channelId = await createRelayChannel(server.ctx, {
        type: 1,
        key: 'sk-upstream',
        baseURL: `http://127.0.0.1:${(breaking.address() as AddressInfo).port}`,
        models: ['gpt-break'],
      });
      const message = await anthropic().messages.create({ ...ask, model: 'gpt-break', stop_sequences: ['BREAK'] });
      expect(message.content).toEqual([expect.objectContaining({ text: 'one two ' })]);
      expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'BREAK' });

      const { text, delta, events } = await streamed({ ...ask, model: 'gpt-break', stop_sequences: ['BREAK'] });
      expect(text).toBe('one two ');
      expect(delta.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'BREAK' });
      expect(events.some((event) => event.type === 'error')).toBe(false);
      expect(events.at(-1).type).toBe('message_stop');

      // No usage came: the prompt and every piece the upstream produced are counted, both calls billed.
      const { logs } = await billedState(server.ctx, { ...caller, channelId });
      expect(logs).toHaveLength(2);
      for (const log of logs) {
        expect(log.prompt_tokens).toBeGreaterThan(0);
        expect(log.completion_tokens).toBeGreaterThanOrEqual(4);
      }
    } finally {
      await new Promise((resolve) => breaking.close(resolve));
    }
  });
});
