import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { aiProxyLibraryAdapter, validateLibraryChannel } from '../../src/relay/providers/aiproxy-library/index.js';
import { documentLinks } from '../../src/relay/providers/aiproxy-library/response.js';
import { fastGptAdapter } from '../../src/relay/providers/fastgpt/index.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import { buildUpstreamRequest } from '../../src/relay/providers/upstream-request.js';
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

const libraryCall = (isStream: boolean, other = 'lib-42'): ChatCall => ({
  upstreamModel: 'gpt-4o-mini',
  isStream,
  target: makeTarget(upstream.baseURL, 'aip-key', other),
  options: emptyOptions,
});
const converter = aiProxyLibraryAdapter.chatConverter;
const conversation = {
  messages: [
    { role: 'system', content: 'Answer from the library.' },
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello!' },
    { role: 'user', content: [{ type: 'text', text: 'What does ModelGate do?' }] },
  ],
};

describe('AI Proxy library (type 21)', () => {
  it('asks the last user question of the channel library and appends the documents as Markdown links', async () => {
    upstream.reply({ body: readFixture('aiproxy-library', 'ask.json') });
    const { text } = await sendUpstream(await converter.buildRequest(conversation, libraryCall(false)));
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/api/library/ask');
    expect(received.headers.authorization).toBe('Bearer aip-key');
    expect(received.json).toEqual({ model: 'gpt-4o-mini', query: 'What does ModelGate do?', libraryId: 'lib-42', stream: false });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'kb-model');
    expect(usage).toBeNull();
    expect((completion.choices as any[])[0].message.content).toBe(
      'ModelGate relays model APIs and bills them exactly.\n\n参考资料：\n1. [Introduction](https://docs.example.com/intro)\n2. [Billing v2](https://docs.example.com/billing%20%28v2%29)',
    );
  });

  it('streams content deltas, then the documents, a finish chunk and no usage (the relay counts)', async () => {
    upstream.reply({ contentType: 'text/event-stream', body: readFixture('aiproxy-library', 'ask-stream.chunks.txt') });
    const { text } = await sendUpstream(await converter.buildRequest(conversation, libraryCall(true)));
    expect(upstream.received.at(-1)!.json).toMatchObject({ stream: true });
    const transform = converter.createStreamTransform('kb-model');
    const chunks = splitSse(text).flatMap((event) => transform.onEvent(event).chunks) as any[];
    chunks.push(...transform.finish().chunks);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: 'Model' });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe(
      'ModelGate relays model APIs.\n\n参考资料：\n1. [Introduction](https://docs.example.com/intro)',
    );
    expect(chunks.at(-1).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(chunks.filter((chunk) => chunk.usage)).toEqual([]);
  });

  it('turns success:false (HTTP 200) into errors: a bad key is 401, a missing library 400', () => {
    const thrown = (fixture: string) => {
      try {
        converter.parseResponse(JSON.parse(readFixture('aiproxy-library', fixture)), 'm');
      } catch (error) {
        return error;
      }
      return null;
    };
    expect(thrown('error-key.json')).toMatchObject({ status: 401, upstreamCode: 'invalid_api_key', message: 'Invalid API key provided' });
    expect(thrown('error-library.json')).toBeInstanceOf(UpstreamError);
    expect(thrown('error-library.json')).toMatchObject({ status: 400, upstreamCode: 'library_not_found' });
    const transform = converter.createStreamTransform('m');
    expect(() => transform.onEvent({ event: null, data: readFixture('aiproxy-library', 'error-key.json') })).toThrow(/Invalid API key/);
  });

  it('requires the library id, is registered as type 21 and ignores documents without a title or link', () => {
    expect(validateLibraryChannel('k', '')).toMatch(/知识库 ID/);
    expect(validateLibraryChannel('k', 'lib-1')).toBeNull();
    expect(adapterForType(21)).toBe(aiProxyLibraryAdapter);
    expect(documentLinks([{ foo: 1 }, null, 'x'])).toBe('');
    expect(documentLinks(undefined)).toBe('');
  });
});

describe('FastGPT (type 22)', () => {
  const call = (isStream: boolean): ChatCall => ({
    upstreamModel: 'fastgpt',
    isStream,
    target: makeTarget(upstream.baseURL, 'fastgpt-abc'),
    options: emptyOptions,
  });

  it('sends the OpenAI chat body with detail:false and the client chatId/variables, Bearer', async () => {
    const body: Record<string, unknown> = {
      model: 'fastgpt',
      messages: [{ role: 'user', content: 'Hi' }],
      chatId: 'c-1',
      variables: { name: 'Ann' },
      detail: true,
    };
    fastGptAdapter.chat.prepareBody(body);
    upstream.reply({ body: readFixture('fastgpt', 'chat.json') });
    const { text } = await sendUpstream(await buildUpstreamRequest(fastGptAdapter, 'chat', body, call(false)));
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/v1/chat/completions');
    expect(received.headers.authorization).toBe('Bearer fastgpt-abc');
    expect(received.json).toEqual({
      model: 'fastgpt',
      messages: [{ role: 'user', content: 'Hi' }],
      chatId: 'c-1',
      variables: { name: 'Ann' },
      detail: false,
    });
    // No usage in the answer: the relay estimates it.
    expect(fastGptAdapter.chat.readUsage(JSON.parse(text))).toBeNull();
  });

  it('reads the stream as OpenAI chunks, registered as type 22', () => {
    const transform = fastGptAdapter.chatStream.createTransform();
    const verdicts = splitSse(readFixture('fastgpt', 'chat-stream.chunks.txt'))
      .filter((event) => event.data !== '[DONE]')
      .map((event) => transform.onChunk(JSON.parse(event.data)));
    expect(verdicts.map((verdict) => verdict.text).join('')).toBe('知识库里说：按量计费。');
    expect(adapterForType(22)).toBe(fastGptAdapter);
  });
});
