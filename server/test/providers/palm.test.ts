import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { palmAdapter } from '../../src/relay/providers/palm/index.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import { geminiTestOptions } from './helpers/gemini-options.js';
import { readFixture, sendUpstream, startFixtureUpstream, type FixtureUpstream } from './helpers/fixture-upstream.js';

let upstream: FixtureUpstream;
const dispatcher = new Agent();
beforeAll(async () => {
  upstream = await startFixtureUpstream();
});
afterAll(async () => {
  await upstream.close();
  await dispatcher.close();
});

const converter = palmAdapter.chatConverter!;
const call = (isStream: boolean): ChatCall => ({
  upstreamModel: 'chat-bison-001',
  isStream,
  target: { baseURL: `${upstream.url}/`, key: 'AIza-palm', headers: {}, other: '', dispatcher },
  options: geminiTestOptions(),
});

describe('PaLM2 adapter', () => {
  it('sends context, few-shot examples and alternating authors to v1beta2 :generateMessage', async () => {
    const body = {
      messages: [
        { role: 'system', content: 'You answer geography questions.' },
        { role: 'system', name: 'example_user', content: 'Capital of Italy?' },
        { role: 'system', name: 'example_assistant', content: 'Rome.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] },
      ],
      temperature: 0.25,
      top_p: 0.95,
      n: 2,
    };
    const built = await converter.buildRequest(body, call(false));
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('palm', 'generate-message.json') });
    const answer = await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe('/v1beta2/models/chat-bison-001:generateMessage');
    expect(received.headers['x-goog-api-key']).toBe('AIza-palm');
    expect(received.json).toEqual({
      prompt: {
        context: 'You answer geography questions.',
        examples: [{ input: { content: 'Capital of Italy?' }, output: { content: 'Rome.' } }],
        messages: [
          { author: '0', content: 'Hi' },
          { author: '1', content: 'Hello!' },
          { author: '0', content: 'What is the capital of France?' },
        ],
      },
      temperature: 0.25,
      topP: 0.95,
      candidateCount: 2,
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(answer.text), 'chat-bison-001');
    expect(usage).toBeNull();
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'chat-bison-001',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Paris is the capital of France.' }, finish_reason: 'stop' }],
    });
  });

  it('declares streaming unsupported: the one JSON answer becomes one content chunk and one finish chunk', async () => {
    expect(converter.isStreamingUnsupported).toBe(true);
    const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'x' }] }, call(true));
    expect(built.url).toBe(`${upstream.url}/v1beta2/models/chat-bison-001:generateMessage`);
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('palm', 'generate-message.json') });
    const answer = await sendUpstream(built);
    const transform = converter.createStreamTransform('chat-bison-001');
    const first = transform.onEvent({ event: null, data: answer.text });
    const end = transform.finish();
    expect(first.text).toBe('Paris is the capital of France.');
    expect(first.usage).toBeNull();
    expect(first.chunks.map((chunk: any) => chunk.choices[0])).toEqual([
      { index: 0, delta: { role: 'assistant', content: 'Paris is the capital of France.' }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'stop' },
    ]);
    expect(first.chunks[0]!.id).toBe(first.chunks[1]!.id);
    expect(end.chunks).toEqual([]);
  });

  it('maps a filtered answer to content_filter and reads the Google error envelope', async () => {
    const { completion } = converter.parseResponse(JSON.parse(readFixture('palm', 'filtered.json')), 'chat-bison-001');
    expect((completion.choices as any[])[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: '' },
      finish_reason: 'content_filter',
    });
    const streamed = converter.createStreamTransform('chat-bison-001').onEvent({ event: null, data: readFixture('palm', 'filtered.json') });
    expect(streamed.chunks.map((chunk: any) => chunk.choices[0].finish_reason)).toEqual([null, 'content_filter']);
    const built = await converter.buildRequest({ messages: [] }, call(false));
    upstream.reply({ status: 404, contentType: 'application/json', body: readFixture('palm', 'error.json') });
    const answer = await sendUpstream(built);
    expect(answer.status).toBe(404);
    expect(palmAdapter.errors.parse(404, answer.text)).toEqual({
      message: 'models/chat-bison-001 is not found for API version v1beta2',
      code: 'NOT_FOUND',
    });
    expect(adapterForType(11)).toBe(palmAdapter);
    expect(palmAdapter.meta).toMatchObject({ type: 11, displayName: 'Google PaLM2', defaultModels: ['chat-bison-001'] });
  });
});
