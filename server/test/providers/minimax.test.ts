import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { miniMaxAdapter, validateMiniMaxChannel } from '../../src/relay/providers/minimax/index.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import { decodeStream } from './helpers/decode-stream.js';
import {
  emptyOptions,
  makeTarget,
  readFixture,
  sendUpstream,
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

const callFor = (isStream: boolean, other = '', model = 'MiniMax-Text-01'): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: makeTarget(upstream.baseURL, 'mm-key', other),
  options: emptyOptions,
});
const converter = miniMaxAdapter.chatConverter;
const embeddings = miniMaxAdapter.embeddingsConverter;
const thrownBy = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return null;
};

describe('MiniMax adapter (type 35)', () => {
  it('posts the OpenAI body to chatcompletion_v2 with Bearer and reads the answer', async () => {
    upstream.reply({ body: readFixture('minimax', 'chat.json') });
    const body = {
      model: 'mm',
      messages: [
        { role: 'system', content: 'Be nice.' },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0.2,
      stream: false,
      stream_options: { include_usage: true },
    };
    const { text } = await sendUpstream(await converter.buildRequest(body, callFor(false)));
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/v1/text/chatcompletion_v2');
    expect(received.headers.authorization).toBe('Bearer mm-key');
    expect(received.json).toEqual({ model: 'MiniMax-Text-01', messages: body.messages, temperature: 0.2 });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'my-model');
    expect(usage).toEqual({ promptTokens: 65, completionTokens: 9, cachedTokens: 0 });
    expect(completion).toMatchObject({
      id: '04ecb5d9b1921ae0fb0e8da9017a5474',
      object: 'chat.completion',
      model: 'my-model',
      choices: [{ message: { content: 'Hello! How can I help you today?' }, finish_reason: 'stop' }],
    });
    expect(completion.base_resp).toBeUndefined();
  });

  it('maps HTTP-200 base_resp failures to UpstreamErrors', () => {
    const failure = (json: unknown) => thrownBy(() => converter.parseResponse(json as Record<string, unknown>, 'm'));
    expect(failure(JSON.parse(readFixture('minimax', 'chat-auth-error.json')))).toMatchObject({
      name: 'UpstreamError',
      status: 401,
      upstreamCode: '1004',
      retryable: true,
    });
    expect(failure({ base_resp: { status_code: 1002, status_msg: 'rate limit' } })).toMatchObject({ status: 429 });
    expect(failure({ base_resp: { status_code: 1039, status_msg: 'token limit' } })).toMatchObject({ status: 429 });
    expect(failure({ base_resp: { status_code: 1008, status_msg: 'insufficient balance' } })).toMatchObject({ status: 403 });
    expect(failure({ base_resp: { status_code: 2013, status_msg: 'invalid params' } })).toMatchObject({ status: 400, retryable: false });
    expect(failure({ base_resp: { status_code: 1000, status_msg: 'unknown error' } })).toMatchObject({ status: 500 });
    expect(failure({ error: { message: 'gateway says no' } })).toMatchObject({ status: 500, message: 'gateway says no' });
  });

  it('streams with stream_options, drops the repeated final message, reads usage', async () => {
    upstream.reply({ contentType: 'text/event-stream', body: readFixture('minimax', 'chat-stream.chunks.txt') });
    const { text } = await sendUpstream(
      await converter.buildRequest({ messages: [{ role: 'user', content: 'Hi' }], stream: true }, callFor(true)),
    );
    expect(upstream.received.at(-1)!.json).toEqual({
      model: 'MiniMax-Text-01',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const transform = converter.createStreamTransform('my-model');
    const results = decodeStream(text, converter.framing).map((event) => transform.onEvent(event));
    const chunks = results.flatMap((result) => result.chunks) as any[];
    expect(chunks).toHaveLength(3);
    expect(chunks.map((chunk) => chunk.choices[0].delta.content ?? '').join('')).toBe('Hello there!');
    expect(results.map((result) => result.text).join('')).toBe('Hello there!');
    expect(chunks.at(-1)).toEqual({
      id: '04ecb6a2f8a4fa2bd8be7fd6c6fe8a8e',
      object: 'chat.completion.chunk',
      created: 1731491490,
      model: 'my-model',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    });
    expect(transform.finish().usage).toEqual({ promptTokens: 66, completionTokens: 4, cachedTokens: 0 });
  });

  it('throws a base_resp failure in a stream chunk, or a bare JSON refusal of the stream request', () => {
    const [first] = decodeStream(readFixture('minimax', 'stream-error.chunks.txt'), converter.framing);
    expect(thrownBy(() => converter.createStreamTransform('m').onEvent(first!))).toMatchObject({
      status: 429,
      upstreamCode: '1002',
      message: 'rate limit exceeded(RPM)',
    });
    const refused = decodeStream(readFixture('minimax', 'stream-refused.txt'), converter.framing);
    expect(thrownBy(() => converter.createStreamTransform('m').onEvent(refused[0]!))).toMatchObject({ status: 401, upstreamCode: '2049' });
  });

  it('converts embeddings to {model, texts, type} and vectors back, GroupId from other', async () => {
    upstream.reply({ body: readFixture('minimax', 'embeddings.json') });
    const { text } = await sendUpstream(
      await embeddings.buildRequest({ model: 'embo-01', input: ['a cat', 'a dog'] }, callFor(false, '1782658868262748467', 'embo-01')),
    );
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/v1/embeddings?GroupId=1782658868262748467');
    expect(received.headers.authorization).toBe('Bearer mm-key');
    expect(received.json).toEqual({ model: 'embo-01', texts: ['a cat', 'a dog'], type: 'db' });
    const { response, usage } = embeddings.parseResponse(JSON.parse(text), 'embo-01');
    expect(response).toEqual({
      object: 'list',
      model: 'embo-01',
      data: [
        { object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] },
        { object: 'embedding', index: 1, embedding: [0.1, 0.2, -0.3] },
      ],
      usage: { prompt_tokens: 12, total_tokens: 12 },
    });
    expect(usage).toEqual({ promptTokens: 12, completionTokens: 0, cachedTokens: 0 });
    const query = await embeddings.buildRequest({ model: 'embo-01', input: 'find cats', type: 'query' }, callFor(false, '', 'embo-01'));
    expect(query).toMatchObject({ url: `${upstream.baseURL}/v1/embeddings`, body: { texts: ['find cats'], type: 'query' } });
    expect(thrownBy(() => embeddings.parseResponse(JSON.parse(readFixture('minimax', 'embeddings-error.json')), 'embo-01'))).toMatchObject({
      status: 403,
      upstreamCode: '1008',
    });
  });

  it('parses error bodies, validates the key, registered as type 35', () => {
    expect(miniMaxAdapter.errors.parse(200, readFixture('minimax', 'chat-auth-error.json'))).toMatchObject({
      code: '1004',
      message: expect.stringContaining('login fail'),
    });
    expect(miniMaxAdapter.errors.parse(401, '{"error":{"message":"bad key","code":"invalid_api_key"}}')).toEqual({
      message: 'bad key',
      code: 'invalid_api_key',
    });
    expect(validateMiniMaxChannel(' ')).toMatch(/API Key/);
    expect(validateMiniMaxChannel('mm-key')).toBeNull();
    expect(adapterForType(35)).toBe(miniMaxAdapter);
    expect(miniMaxAdapter.meta).toMatchObject({ type: 35, defaultBaseURL: 'https://api.minimax.chat' });
  });
});
