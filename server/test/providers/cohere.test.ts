import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { buildCohereRerankRequest, cohereAdapter, parseCohereRerank } from '../../src/relay/providers/cohere/index.js';
import { fetchCohereModels } from '../../src/relay/providers/cohere/models.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import {
  emptyOptions,
  makeTarget,
  readFixture,
  sendUpstream,
  splitNdjson,
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

const callFor = (isStream: boolean, model = 'command-r-plus'): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: makeTarget(upstream.baseURL, 'co-key'),
  options: emptyOptions,
});
const converter = cohereAdapter.chatConverter;

describe('Cohere adapter (type 34)', () => {
  it('maps messages to message, chat_history and preamble, and sampling fields', async () => {
    upstream.reply({ body: readFixture('cohere', 'chat.json') });
    const body = {
      model: 'command-r-plus',
      max_tokens: 100,
      temperature: 0.3,
      top_p: 0.8,
      top_k: 40,
      stop: ['\n\n'],
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Look up',
            parameters: { type: 'object', properties: { q: { type: 'string', description: 'query' } }, required: ['q'] },
          },
        },
      ],
    };
    const { status, text } = await sendUpstream(await converter.buildRequest(body, callFor(false)));
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/v1/chat');
    expect(received.headers.authorization).toBe('Bearer co-key');
    expect(received.json).toEqual({
      model: 'command-r-plus',
      message: 'Capital of France?',
      stream: false,
      preamble: 'You are terse.',
      chat_history: [
        { role: 'USER', message: 'Hi' },
        { role: 'CHATBOT', message: 'Hello!' },
      ],
      max_tokens: 100,
      stop_sequences: ['\n\n'],
      temperature: 0.3,
      p: 0.8,
      k: 40,
      tools: [
        { name: 'lookup', description: 'Look up', parameter_definitions: { q: { type: 'string', description: 'query', required: true } } },
      ],
    });
    expect(status).toBe(200);
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'command-r-plus');
    expect(usage).toEqual({ promptTokens: 31, completionTokens: 7, cachedTokens: 0 });
    expect(completion).toMatchObject({
      id: 'chatcmpl-gen-abc123',
      choices: [{ message: { role: 'assistant', content: 'Paris is the capital of France.' }, finish_reason: 'stop' }],
      usage: { total_tokens: 38 },
    });
  });

  it('sends tool results and reads tool calls with meta.tokens usage', async () => {
    upstream.reply({ body: readFixture('cohere', 'chat-tools.json') });
    const body = {
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: 'sunny' },
      ],
    };
    const { text } = await sendUpstream(await converter.buildRequest(body, callFor(false)));
    expect(upstream.received.at(-1)!.json).toMatchObject({
      message: '',
      tool_results: [{ call: { name: 'get_weather', parameters: { city: 'Paris' } }, outputs: [{ result: 'sunny' }] }],
      chat_history: [
        { role: 'USER', message: 'Weather in Paris?' },
        { role: 'CHATBOT', message: '' },
      ],
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'command-r-plus');
    expect(usage).toEqual({ promptTokens: 120, completionTokens: 15, cachedTokens: 0 });
    expect((completion.choices as any[])[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    });
  });

  it('converts the NDJSON stream with usage from stream-end billed_units', async () => {
    upstream.reply({ contentType: 'application/stream+json', body: readFixture('cohere', 'chat-stream.chunks.txt') });
    const { text } = await sendUpstream(await converter.buildRequest({ messages: [{ role: 'user', content: 'Capital?' }] }, callFor(true)));
    expect(upstream.received.at(-1)!.json).toMatchObject({ stream: true, message: 'Capital?' });
    const transform = converter.createStreamTransform('command-r-plus');
    const chunks = splitNdjson(text).flatMap((event) => transform.onEvent(event).chunks) as any[];
    expect(chunks.every((chunk) => chunk.id === 'chatcmpl-gen-stream')).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('Paris it is.');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('length');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 } });
    expect(transform.finish().usage).toEqual({ promptTokens: 20, completionTokens: 3, cachedTokens: 0 });
    const failing = converter.createStreamTransform('m');
    expect(() =>
      failing.onEvent({ event: null, data: '{"event_type":"stream-end","finish_reason":"ERROR","response":{"text":"boom"}}' }),
    ).toThrow(UpstreamError);
  });

  it('reranks into Jina-style results billed per search unit', async () => {
    upstream.reply({ body: readFixture('cohere', 'rerank.json') });
    const body = {
      model: 'rerank-v3.5',
      query: 'capital of Nevada',
      documents: ['Washington', 'Paris', 'Carson City'],
      top_n: 2,
      return_documents: true,
    };
    const { text } = await sendUpstream(buildCohereRerankRequest(body, callFor(false, 'rerank-v3.5')));
    expect(upstream.received.at(-1)).toMatchObject({
      url: '/v1/rerank',
      json: { model: 'rerank-v3.5', query: 'capital of Nevada', documents: body.documents, top_n: 2, return_documents: true },
    });
    const parsed = parseCohereRerank(JSON.parse(text), 'rerank-v3.5');
    expect(parsed.calls).toBe(1);
    expect(parsed.usage).toBeNull();
    expect(parsed.response).toEqual({
      id: 'rr-1',
      model: 'rerank-v3.5',
      usage: { search_units: 1 },
      results: [
        { index: 2, relevance_score: 0.98, document: { text: 'Carson City is the capital of Nevada.' } },
        { index: 0, relevance_score: 0.12, document: { text: 'Washington, D.C. is the capital of the USA.' } },
      ],
    });
  });

  it('parses {message} errors, lists models[].name, and is registered as type 34', async () => {
    expect(cohereAdapter.errors.parse(401, readFixture('cohere', 'error.json'))).toEqual({ message: 'invalid api token', code: null });
    upstream.reply({ body: readFixture('cohere', 'models.json') });
    expect(await fetchCohereModels(makeTarget(upstream.baseURL, 'co-key'))).toEqual(['command-r-plus', 'rerank-v3.5']);
    expect(upstream.received.at(-1)).toMatchObject({ method: 'GET', url: '/v1/models' });
    expect(adapterForType(34)).toBe(cohereAdapter);
    expect([...cohereAdapter.endpoints]).toEqual(['chat', 'rerank']);
  });
});
