import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { difyAdapter, validateDifyChannel } from '../../src/relay/providers/dify/index.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import {
  emptyOptions,
  makeTarget,
  readFixture,
  sendUpstream,
  splitSse,
  startRecordedUpstream,
  type RecordedUpstream,
} from './helpers/recorded-upstream.js';

let upstream: RecordedUpstream;
beforeAll(async () => {
  upstream = await startRecordedUpstream();
});
afterAll(async () => {
  await upstream.close();
});

const callFor = (isStream: boolean, other = ''): ChatCall => ({
  upstreamModel: 'dify',
  isStream,
  target: makeTarget(upstream.baseURL, 'app-key1', other),
  options: emptyOptions,
});
const converter = difyAdapter.chatConverter;

describe('Dify adapter (type 37)', () => {
  it('sends a lone user message as the query, blocking, and converts the answer', async () => {
    upstream.reply({ body: readFixture('dify', 'chat-blocking.json') });
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Who are you?' },
            { type: 'image_url', image_url: { url: 'https://img.example/cat.png' } },
          ],
        },
      ],
    };
    const { text } = await sendUpstream(await converter.buildRequest(body, callFor(false)));
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/v1/chat-messages');
    expect(received.headers.authorization).toBe('Bearer app-key1');
    expect(received.json).toEqual({
      inputs: {},
      query: 'Who are you?',
      response_mode: 'blocking',
      user: 'modelgate-user',
      files: [{ type: 'image', transfer_method: 'remote_url', url: 'https://img.example/cat.png' }],
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'dify');
    expect(usage).toEqual({ promptTokens: 1033, completionTokens: 12, cachedTokens: 0 });
    expect(completion).toMatchObject({
      id: 'chatcmpl-m-1',
      choices: [{ message: { role: 'assistant', content: 'Hi, I am the Dify bot.' }, finish_reason: 'stop' }],
      usage: { total_tokens: 1045 },
    });
  });

  it('folds earlier turns into a transcript query and streams agent messages with usage', async () => {
    upstream.reply({ contentType: 'text/event-stream', body: readFixture('dify', 'chat-stream.chunks.txt') });
    const body = {
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Greet the world' },
      ],
    };
    const { text } = await sendUpstream(await converter.buildRequest(body, callFor(true, 'agent')));
    expect(upstream.received.at(-1)!.json).toEqual({
      inputs: {},
      response_mode: 'streaming',
      user: 'modelgate-user',
      query: 'SYSTEM: Be kind.\n\nUSER: Hi\n\nASSISTANT: Hello!\n\nUSER: Greet the world',
    });
    expect(converter.framing).toBe('sse');
    const transform = converter.createStreamTransform('dify');
    const results = splitSse(text).map((event) => transform.onEvent(event));
    const chunks = results.flatMap((result) => result.chunks) as any[];
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', reasoning_content: 'Look it up.' });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('Hello world');
    expect(chunks.at(-2).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 } });
    expect(transform.finish().usage).toEqual({ promptTokens: 40, completionTokens: 3, cachedTokens: 0 });
  });

  it('throws the error event as an UpstreamError with its status and code', () => {
    const transform = converter.createStreamTransform('dify');
    const [first, second] = splitSse(readFixture('dify', 'stream-error.chunks.txt'));
    expect(transform.onEvent(first!).text).toBe('Par');
    try {
      transform.onEvent(second!);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ status: 400, upstreamCode: 'invalid_param', message: 'Model is not available' });
    }
  });

  it('runs workflow apps through /v1/workflows/run', async () => {
    upstream.reply({ body: readFixture('dify', 'workflow-blocking.json') });
    const { text } = await sendUpstream(
      await converter.buildRequest({ messages: [{ role: 'user', content: 'go' }] }, callFor(false, 'workflow')),
    );
    expect(upstream.received.at(-1)).toMatchObject({
      url: '/v1/workflows/run',
      json: { inputs: { query: 'go' }, response_mode: 'blocking', user: 'modelgate-user' },
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'dify');
    expect((completion.choices as any[])[0].message.content).toBe('Workflow says hi');
    expect(usage).toEqual({ promptTokens: 77, completionTokens: 0, cachedTokens: 0 });
  });

  it('parses errors, validates keys and app types, registered as type 37', () => {
    expect(difyAdapter.errors.parse(400, readFixture('dify', 'error.json'))).toEqual({
      message: 'App unavailable, please check your app configurations.',
      code: 'app_unavailable',
    });
    expect(validateDifyChannel('sk-x', '')).toMatch(/app-/);
    expect(validateDifyChannel('app-x', 'bogus')).toMatch(/应用类型/);
    expect(validateDifyChannel('app-x', 'workflow')).toBeNull();
    expect(adapterForType(37)).toBe(difyAdapter);
  });
});
