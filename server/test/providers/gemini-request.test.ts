import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../src/relay/providers/gemini/index.js';
import { cleanSchema } from '../../src/relay/providers/gemini/schema.js';
import { adapterForType, listChannelTypes } from '../../src/relay/providers/registry.js';
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

const call = (model: string, isStream = false, overrides: Record<string, string> = {}): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: { baseURL: `${upstream.url}/`, key: 'AIza-test-key', headers: {}, other: '', dispatcher },
  options: geminiTestOptions(overrides),
});
const converter = geminiAdapter.chatConverter!;
const allCategoriesAt = (threshold: string) =>
  [
    'HARM_CATEGORY_HARASSMENT',
    'HARM_CATEGORY_HATE_SPEECH',
    'HARM_CATEGORY_SEXUALLY_EXPLICIT',
    'HARM_CATEGORY_DANGEROUS_CONTENT',
    'HARM_CATEGORY_CIVIC_INTEGRITY',
  ].map((category) => ({ category, threshold }));

describe('Gemini adapter: OpenAI request → generateContent', () => {
  it('sends system, roles, media, tool calls and tool results to {base}/v1beta/models/{model}:generateContent', async () => {
    const body = {
      model: 'alias',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.webp?size=2' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '{"temp":18}' },
        { role: 'tool', tool_call_id: 'call_b', content: '10:00' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              additionalProperties: false,
              properties: { city: { type: 'string', default: 'Paris', format: 'uri' }, days: { type: ['integer', 'null'], minimum: 1 } },
              required: ['city', 'ghost'],
            },
          },
        },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 256,
      stop: 'END',
      n: 2,
      response_format: { type: 'json_object' },
    };
    const built = await converter.buildRequest(body, call('gemini-2.5-flash'));
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('gemini', 'generate-text.json') });
    const sent = await sendUpstream(built);
    expect(sent.status).toBe(200);
    const received = upstream.requests.at(-1)!;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(received.headers['x-goog-api-key']).toBe('AIza-test-key');
    expect(received.headers.authorization).toBeUndefined();
    expect(received.json).toEqual({
      systemInstruction: { parts: [{ text: 'Be terse.' }, { text: 'Answer in English.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What is here?' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
            { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp?size=2' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'Checking.' },
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_time', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { temp: 18 } } },
            { functionResponse: { name: 'get_time', response: { content: '10:00' } } },
          ],
        },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather',
              parameters: {
                type: 'object',
                properties: { city: { type: 'string' }, days: { type: 'integer', nullable: true, minimum: 1 } },
                required: ['city'],
              },
            },
            { name: 'get_time' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      safetySettings: allCategoriesAt('OFF'),
      generationConfig: {
        temperature: 0.3,
        topP: 0.9,
        maxOutputTokens: 256,
        candidateCount: 2,
        stopSequences: ['END'],
        responseMimeType: 'application/json',
      },
    });
  });

  it('streams to :streamGenerateContent?alt=sse with the version and safety threshold of the model key', async () => {
    const options = {
      'gemini.version_settings': '{"default":"v1beta","gemini-1.0-pro":"v1"}',
      'gemini.safety_settings': '{"default":"OFF","gemini-1.0-pro":"BLOCK_NONE"}',
    };
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 10, max_tokens: 99 },
      call('gemini-1.0-pro', true, options),
    );
    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe('/v1/models/gemini-1.0-pro:streamGenerateContent?alt=sse');
    expect(received.json.safetySettings).toEqual(allCategoriesAt('BLOCK_NONE'));
    expect(received.json.generationConfig).toEqual({ maxOutputTokens: 10 });
    const other = await converter.buildRequest({ messages: [{ role: 'user', content: 'hi' }] }, call('gemini-2.5-pro', true, options));
    expect(other.url).toBe(`${upstream.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`);
    expect((other.body as any).safetySettings).toEqual(allCategoriesAt('OFF'));
  });

  it('reads a stored version that is not a path segment as v1beta (saving refuses it)', async () => {
    for (const version of ['v1beta\r\nX-Injected: 1', '../v1', 'v1?key=x', 'v1/models/x#']) {
      const options = { 'gemini.version_settings': JSON.stringify({ default: version }) };
      const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'hi' }] }, call('gemini-2.5-pro', false, options));
      expect(built.url, version).toBe(`${upstream.url}/v1beta/models/gemini-2.5-pro:generateContent`);
    }
  });

  it('reads a stored safety threshold that Gemini does not take as OFF (saving refuses it)', async () => {
    for (const threshold of ['BLOCK_SOME', 'block_none', '', 'OFF ']) {
      const options = { 'gemini.safety_settings': JSON.stringify({ default: 'BLOCK_ONLY_HIGH', 'gemini-2.5-pro': threshold }) };
      const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'hi' }] }, call('gemini-2.5-pro', false, options));
      expect((built.body as any).safetySettings, threshold).toEqual(allCategoriesAt('OFF'));
    }
  });

  it('maps thinking suffixes and reasoning_effort to thinkingConfig, stripping the suffix from the URL', async () => {
    const user = { messages: [{ role: 'user', content: 'x' }] };
    const suffix = await converter.buildRequest(user, call('gemini-2.5-flash-thinking-2048'));
    expect(suffix.url).toBe(`${upstream.url}/v1beta/models/gemini-2.5-flash:generateContent`);
    expect((suffix.body as any).generationConfig).toEqual({ thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } });
    const dynamic = await converter.buildRequest(user, call('gemini-2.5-pro-thinking'));
    expect((dynamic.body as any).generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: -1 });
    const off = await converter.buildRequest(user, call('gemini-2.5-flash-nothinking'));
    expect(off.url).toContain('/models/gemini-2.5-flash:generateContent');
    expect((off.body as any).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 0 });
    const proOff = await converter.buildRequest(user, call('gemini-2.5-pro-nothinking'));
    expect((proOff.body as any).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 128 });
    const effort = await converter.buildRequest({ ...user, reasoning_effort: 'high' }, call('gemini-2.5-flash'));
    expect((effort.body as any).generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 24576 });
    const level = await converter.buildRequest({ ...user, reasoning_effort: 'low' }, call('gemini-3-pro-preview'));
    expect((level.body as any).generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: 'low' });
    const google = await converter.buildRequest(
      { ...user, extra_body: { google: { thinking_config: { thinking_budget: 512, include_thoughts: false } } } },
      call('gemini-2.5-flash'),
    );
    expect((google.body as any).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 512, includeThoughts: false });
  });

  it('maps tool_choice modes, json_schema response formats and Gemini 3 replayed calls', async () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } } }];
    const modes = await Promise.all(
      ['auto', 'none', 'required'].map((choice) =>
        converter.buildRequest({ messages: [], tools, tool_choice: choice }, call('gemini-2.5-flash')),
      ),
    );
    expect(modes.map((built) => (built.body as any).toolConfig.functionCallingConfig.mode)).toEqual(['AUTO', 'NONE', 'ANY']);
    const schema = await converter.buildRequest(
      {
        messages: [{ role: 'user', content: 'x' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'r',
            strict: true,
            schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'number' } }, required: ['n'] },
          },
        },
      },
      call('gemini-2.5-flash'),
    );
    expect((schema.body as any).generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    });
    const replay = await converter.buildRequest(
      {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":"1"}' } }],
          },
        ],
      },
      call('gemini-3-pro-preview'),
    );
    expect((replay.body as any).contents).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: '1' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
    ]);
  });

  it('asks image models of gemini.supported_imagine_models for TEXT and IMAGE', async () => {
    const image = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'draw a cat' }] },
      call('gemini-2.0-flash-exp-image-generation'),
    );
    expect((image.body as any).generationConfig).toEqual({ responseModalities: ['TEXT', 'IMAGE'] });
    const text = await converter.buildRequest({ messages: [{ role: 'user', content: 'x' }] }, call('gemini-2.0-flash'));
    expect((text.body as any).generationConfig).toBeUndefined();
  });

  it('cleans nested schemas: anyOf, items, enums and unsupported formats', () => {
    expect(
      cleanSchema({
        type: 'array',
        items: {
          type: 'object',
          properties: { when: { type: 'string', format: 'date-time', examples: ['x'] }, kind: { enum: [1, 2] } },
          additionalProperties: {},
        },
        anyOf: [{ type: 'string', const: 'a' }],
      }),
    ).toEqual({
      type: 'array',
      items: { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, kind: { enum: ['1', '2'] } } },
      anyOf: [{ type: 'string' }],
    });
  });

  it('builds batchEmbedContents and converts the answer to an OpenAI list', async () => {
    const built = await geminiAdapter.embeddingsConverter!.buildRequest(
      { model: 'x', input: ['first', 'second'], dimensions: 3 },
      call('gemini-embedding-001'),
    );
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('gemini', 'embeddings.json') });
    const sent = await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(received.headers['x-goog-api-key']).toBe('AIza-test-key');
    expect(received.json).toEqual({
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'first' }] }, outputDimensionality: 3 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'second' }] }, outputDimensionality: 3 },
      ],
    });
    const { response, usage } = geminiAdapter.embeddingsConverter!.parseResponse(JSON.parse(sent.text), 'gemini-embedding-001');
    expect(usage).toBeNull();
    expect(response).toEqual({
      object: 'list',
      model: 'gemini-embedding-001',
      usage: { prompt_tokens: 0, total_tokens: 0 },
      data: [
        { object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] },
        { object: 'embedding', index: 1, embedding: [0.5, 0.25, -0.125] },
      ],
    });
  });

  it('passes a native Gemini body through unchanged but for the model in the URL', async () => {
    const native = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { temperature: 1 }, safetySettings: [] };
    const built = await geminiAdapter.native!.buildRequest(native, call('gemini-2.5-flash', true));
    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(received.json).toEqual(native);
    expect(geminiAdapter.native!.format).toBe('gemini');
  });

  it('fetches the model list with ?key=, following nextPageToken, without the models/ prefix', async () => {
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('gemini', 'models-page1.json') });
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('gemini', 'models-page2.json') });
    const names = await geminiAdapter.fetchModels!({
      baseURL: `${upstream.url}/v1beta`,
      key: 'AIza-test-key',
      headers: {},
      other: '',
      dispatcher,
    });
    expect(names).toEqual(['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-embedding-001']);
    const [first, second] = upstream.requests.slice(-2);
    expect(first!.method).toBe('GET');
    expect(first!.url).toBe('/v1beta/models?key=AIza-test-key&pageSize=1000');
    expect(second!.url).toBe('/v1beta/models?key=AIza-test-key&pageSize=1000&pageToken=page-2-token');
    upstream.reply({ status: 400, contentType: 'application/json', body: readFixture('gemini', 'error-400.json') });
    await expect(geminiAdapter.fetchModels!({ baseURL: upstream.url, key: 'bad', headers: {}, other: '', dispatcher })).rejects.toThrow(
      'API key not valid',
    );
  });

  it('is registered as type 24 with its metadata', () => {
    expect(adapterForType(24)).toBe(geminiAdapter);
    const meta = listChannelTypes().find((type) => type.type === 24)!;
    expect(meta).toMatchObject({
      slug: 'gemini',
      displayName: 'Google Gemini',
      defaultBaseURL: 'https://generativelanguage.googleapis.com',
      endpoints: ['chat', 'embeddings'],
    });
    expect(meta.defaultModels).toContain('gemini-2.5-flash');
    const target = { baseURL: 'https://generativelanguage.googleapis.com/', key: 'k', headers: {}, other: '', dispatcher };
    expect(geminiAdapter.api.url('models', target, '')).toBe('https://generativelanguage.googleapis.com/v1beta/models');
    expect(geminiAdapter.api.headers(target)['x-goog-api-key']).toBe('k');
  });
});
