import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import {
  buildOllamaEmbedRequest,
  buildOllamaGenerateRequest,
  createOllamaStreamTransform,
  ollamaAdapter,
  parseOllamaEmbed,
} from '../../src/relay/providers/ollama/index.js';
import { fetchOllamaModels } from '../../src/relay/providers/ollama/models.js';
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

const callFor = (key: string, isStream: boolean, model = 'llama3.1'): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: makeTarget(upstream.baseURL, key),
  options: emptyOptions,
});
const converter = ollamaAdapter.chatConverter;

describe('Ollama native adapter (type 4)', () => {
  it('converts an OpenAI chat body to /api/chat with options, images and tools; no auth without a key', async () => {
    upstream.reply({ body: readFixture('ollama', 'chat.json') });
    const body = {
      model: 'llama3.1',
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What colour?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"at":"sky"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'blue' },
      ],
      tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object', properties: {} } } }],
    };
    const built = await converter.buildRequest(body, callFor('', false));
    const { status, text } = await sendUpstream(built);
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/api/chat');
    expect(received.headers.authorization).toBeUndefined();
    expect(received.json).toEqual({
      model: 'llama3.1',
      stream: false,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What colour?', images: ['iVBORw0K'] },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'look', arguments: { at: 'sky' } } }] },
        { role: 'tool', content: 'blue', tool_name: 'look' },
      ],
      options: { temperature: 0.2, top_p: 0.9, num_predict: 64, stop: ['END'] },
      tools: body.tools,
    });
    expect(status).toBe(200);
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'llama3.1');
    expect(usage).toEqual({ promptTokens: 26, completionTokens: 5, cachedTokens: 0 });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'llama3.1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'The sky is blue.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 26, completion_tokens: 5, total_tokens: 31 },
    });
  });

  it('sends Bearer when a key is set and maps tool calls back to OpenAI', async () => {
    upstream.reply({ body: readFixture('ollama', 'chat-tools.json') });
    const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'weather?' }] }, callFor('proxy-key', false));
    const { text } = await sendUpstream(built);
    expect(upstream.received.at(-1)!.headers.authorization).toBe('Bearer proxy-key');
    const { completion } = converter.parseResponse(JSON.parse(text), 'llama3.1');
    const choice = (completion.choices as any[])[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls[0]).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
  });

  it('turns an NDJSON chat stream into OpenAI chunks with usage from the done line', async () => {
    expect(converter.framing).toBe('ndjson');
    upstream.reply({ contentType: 'application/x-ndjson', body: readFixture('ollama', 'chat-stream.chunks.txt') });
    const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'sky?' }] }, callFor('', true));
    const { text } = await sendUpstream(built);
    expect(upstream.received.at(-1)!.json).toMatchObject({ stream: true });
    const transform = converter.createStreamTransform('llama3.1');
    const results = splitNdjson(text).map((event) => transform.onEvent(event));
    const chunks = results.flatMap((result) => result.chunks) as any[];
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('The sky is blue.');
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.at(-2).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 26, completion_tokens: 4, total_tokens: 30 },
    });
    expect(results.map((result) => result.text).join('')).toBe('The sky is blue.');
    expect(transform.finish().usage).toEqual({ promptTokens: 26, completionTokens: 4, cachedTokens: 0 });
  });

  it('throws an UpstreamError on an in-stream error line', () => {
    const transform = createOllamaStreamTransform('llama3.1');
    const [first, second] = splitNdjson(readFixture('ollama', 'stream-error.chunks.txt'));
    expect(transform.onEvent(first!).text).toBe('Partial');
    expect(() => transform.onEvent(second!)).toThrow(UpstreamError);
  });

  it('serves completions through /api/generate and embeddings through /api/embed', async () => {
    upstream.reply({ body: readFixture('ollama', 'embed.json') });
    const generate = buildOllamaGenerateRequest({ prompt: 'def', max_tokens: 2 }, callFor('', true));
    expect(generate.url).toBe(`${upstream.baseURL}/api/generate`);
    expect(generate.body).toEqual({ model: 'llama3.1', prompt: 'def', stream: true, options: { num_predict: 2 } });
    const transform = createOllamaStreamTransform('llama3.1', 'completion');
    const chunks = splitNdjson(readFixture('ollama', 'generate-stream.chunks.txt')).flatMap(
      (event) => transform.onEvent(event).chunks,
    ) as any[];
    expect(chunks.map((chunk) => chunk.choices[0]?.text ?? '').join('')).toBe('def add');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('length');
    expect(transform.finish().usage).toEqual({ promptTokens: 7, completionTokens: 2, cachedTokens: 0 });

    const embed = buildOllamaEmbedRequest({ input: ['a', 'b'] }, callFor('', false, 'nomic-embed-text'));
    const { text } = await sendUpstream(embed);
    expect(upstream.received.at(-1)).toMatchObject({ url: '/api/embed', json: { model: 'nomic-embed-text', input: ['a', 'b'] } });
    const parsed = parseOllamaEmbed(JSON.parse(text), 'nomic-embed-text');
    expect(parsed.usage).toEqual({ promptTokens: 8, completionTokens: 0, cachedTokens: 0 });
    expect(parsed.response).toMatchObject({
      object: 'list',
      data: [{ index: 0, embedding: [0.01, -0.02, 0.03] }, { index: 1 }],
      usage: { prompt_tokens: 8 },
    });
    expect(ollamaAdapter.embeddings.readUsage(JSON.parse(text))).toEqual({ promptTokens: 8, completionTokens: 0, cachedTokens: 0 });
  });

  it('lists models from /api/tags and parses {"error"} bodies', async () => {
    upstream.reply({ body: readFixture('ollama', 'tags.json') });
    expect(await fetchOllamaModels(makeTarget(`${upstream.baseURL}/v1`, ''))).toEqual(['llama3.1:latest', 'nomic-embed-text:latest']);
    expect(upstream.received.at(-1)).toMatchObject({ method: 'GET', url: '/api/tags' });
    expect(ollamaAdapter.errors.parse(404, readFixture('ollama', 'error.json'))).toEqual({
      message: 'model "llama9" not found, try pulling it first',
      code: null,
    });
    expect(adapterForType(4)).toBe(ollamaAdapter);
    expect(ollamaAdapter.meta).toMatchObject({ type: 4, defaultBaseURL: 'http://localhost:11434' });
  });
});
