import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../src/relay/providers/anthropic/index.js';
import { adapterForType, listChannelTypes } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import { claudeTestOptions } from './helpers/adapter-options.js';
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

const call = (model: string, overrides: Record<string, string> = {}, headers: Record<string, string> = {}): ChatCall => ({
  upstreamModel: model,
  isStream: false,
  target: { baseURL: `${upstream.url}/`, key: 'sk-ant-test', headers, other: '', dispatcher },
  options: claudeTestOptions(overrides),
});

const converter = anthropicAdapter.chatConverter!;

describe('Anthropic adapter: OpenAI request → Messages request', () => {
  it('sends system, merged turns, tools, images and tool results to {base}/v1/messages', async () => {
    const body = {
      model: 'gpt-alias',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And this picture:' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C, sunny' },
        { role: 'user', content: 'Thanks' },
      ],
      stop: 'END',
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather by city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: 'required',
      user: 'user-7',
    };
    const built = await converter.buildRequest(
      body,
      call('claude-sonnet-4-20250514', {}, { 'anthropic-beta': 'prompt-caching-2024-07-31' }),
    );
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('anthropic', 'chat-response.json') });
    const response = await sendUpstream(built);
    const sent = upstream.requests.at(-1)!;

    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-test');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 8192,
      system: [
        { type: 'text', text: 'You are terse.' },
        { type: 'text', text: 'Answer in English.' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris?' },
            { type: 'text', text: 'And this picture:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '18°C, sunny' },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
      stop_sequences: ['END'],
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      tools: [
        {
          name: 'get_weather',
          description: 'Weather by city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'any' },
      metadata: { user_id: 'user-7' },
    });

    const { completion, usage } = converter.parseResponse(JSON.parse(response.text), 'claude-sonnet-4-20250514');
    expect(completion).toMatchObject({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      model: 'claude-sonnet-4-20250514',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Let me check the weather in Paris.',
            reasoning_content: 'The user wants the weather in Paris; I should call the tool.',
            tool_calls: [
              {
                id: 'toolu_01A09q90qw90lq917835lq9',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
              },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 1320, completion_tokens: 85, total_tokens: 1405, prompt_tokens_details: { cached_tokens: 1000 } },
    });
    // prompt = input 120 + cache read 1000 + cache write 200; each counted once.
    expect(usage).toEqual({ promptTokens: 1320, completionTokens: 85, cachedTokens: 1000, cacheCreationTokens: 200 });
    expect(anthropicAdapter.chat.readUsage(JSON.parse(response.text))).toEqual(usage);
  });

  it('maps tool_choice variants and parallel_tool_calls', async () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
    const choiceFor = async (tool_choice: unknown, extra: Record<string, unknown> = {}) =>
      (
        (
          await converter.buildRequest(
            { messages: [{ role: 'user', content: 'x' }], tools, tool_choice, ...extra },
            call('claude-sonnet-4-20250514'),
          )
        ).body as any
      ).tool_choice;
    expect(await choiceFor('auto')).toEqual({ type: 'auto' });
    expect(await choiceFor('none')).toEqual({ type: 'none' });
    expect(await choiceFor('required')).toEqual({ type: 'any' });
    expect(await choiceFor({ type: 'function', function: { name: 'f' } })).toEqual({ type: 'tool', name: 'f' });
    expect(await choiceFor(undefined, { parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  });

  it('picks max_tokens: the request, the per-model option, 4096 for legacy models, then the default', async () => {
    const maxFor = async (model: string, body: Record<string, unknown> = {}, overrides: Record<string, string> = {}) =>
      ((await converter.buildRequest({ messages: [{ role: 'user', content: 'x' }], ...body }, call(model, overrides))).body as any)
        .max_tokens;
    expect(await maxFor('claude-sonnet-4-20250514', { max_tokens: 300 })).toBe(300);
    expect(await maxFor('claude-sonnet-4-20250514', { max_completion_tokens: 500, max_tokens: 300 })).toBe(500);
    expect(await maxFor('claude-sonnet-4-20250514')).toBe(8192);
    expect(await maxFor('claude-3-haiku-20240307')).toBe(4096);
    expect(await maxFor('claude-3-opus-20240229')).toBe(4096);
    expect(await maxFor('claude-2.1')).toBe(4096);
    expect(await maxFor('claude-instant-1.2')).toBe(4096);
    expect(await maxFor('claude-3-5-sonnet-20241022')).toBe(8192);
    const table = { 'claude.default_max_tokens': '{"default":16000,"claude-opus-4-20250514":32000}' };
    expect(await maxFor('claude-opus-4-20250514', {}, table)).toBe(32000);
    expect(await maxFor('claude-sonnet-4-20250514', {}, table)).toBe(16000);
    expect(await maxFor('claude-3-haiku-20240307', {}, table)).toBe(4096);
  });

  it('turns the -thinking suffix into a thinking budget and drops temperature', async () => {
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], max_tokens: 10000, temperature: 0.7, top_k: 5 },
      call('claude-3-7-sonnet-20250219-thinking'),
    );
    expect(built.body).toMatchObject({
      model: 'claude-3-7-sonnet-20250219',
      max_tokens: 10000,
      thinking: { type: 'enabled', budget_tokens: 8000 },
    });
    expect(built.body).not.toHaveProperty('temperature');
    expect(built.body).not.toHaveProperty('top_k');
    const off = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }] },
      call('claude-3-7-sonnet-20250219-thinking', { 'claude.thinking_adapter_enabled': 'false' }),
    );
    expect(off.body).toMatchObject({ model: 'claude-3-7-sonnet-20250219-thinking' });
    expect(off.body).not.toHaveProperty('thinking');
    const half = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }] },
      call('claude-sonnet-4-20250514-thinking', { 'claude.thinking_adapter_budget_tokens_percentage': '0.5' }),
    );
    expect(half.body).toMatchObject({ max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 4096 } });
    const full = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], max_tokens: 2000 },
      call('claude-sonnet-4-20250514-thinking', { 'claude.thinking_adapter_budget_tokens_percentage': '1' }),
    );
    expect(full.body).toMatchObject({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 } });
  });

  it('maps reasoning_effort to a thinking budget, keeping room for the answer', async () => {
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], max_tokens: 2000, reasoning_effort: 'medium', temperature: 1 },
      call('claude-sonnet-4-20250514'),
    );
    expect(built.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4096 }, max_tokens: 6096 });
    expect(built.body).not.toHaveProperty('temperature');
  });

  it('adds claude.model_headers_settings headers for the model, merging anthropic-beta', async () => {
    const settings = {
      'claude.model_headers_settings': JSON.stringify({
        'claude-3-7-sonnet-20250219': { 'anthropic-beta': ['output-128k-2025-02-19', 'prompt-caching-2024-07-31'] },
      }),
    };
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }] },
      call('claude-3-7-sonnet-20250219', settings, { 'anthropic-beta': 'prompt-caching-2024-07-31', 'anthropic-version': '2023-01-01' }),
    );
    expect(built.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31,output-128k-2025-02-19');
    expect(built.headers['anthropic-version']).toBe('2023-01-01');
  });

  it('never lets claude.model_headers_settings move, reframe or re-sign the request, or send what is not HTTP', async () => {
    // As a hand-edited database could hold it (saving refuses it): only the valid, settable header goes out.
    const settings = {
      'claude.model_headers_settings': JSON.stringify({
        'claude-3-7-sonnet-20250219': {
          host: 'evil.example',
          'Content-Length': '5',
          'transfer-encoding': 'chunked',
          'x-api-key': 'other',
          authorization: 'Bearer other',
          'bad name': 'v',
          'x-split': 'a\r\nx-injected: 1',
          'x-wide': 'é',
          'x-kept': 'yes',
        },
      }),
    };
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }] },
      call('claude-3-7-sonnet-20250219', settings),
    );
    const plain = await converter.buildRequest({ messages: [{ role: 'user', content: 'x' }] }, call('claude-3-7-sonnet-20250219'));
    expect(built.headers).toEqual({ ...plain.headers, 'x-kept': 'yes' });
  });
});

describe('Anthropic adapter: errors, native pass-through, registry', () => {
  it('reads error bodies from the upstream', async () => {
    const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'x' }] }, call('claude-sonnet-4-20250514'));
    upstream.reply({ status: 529, contentType: 'application/json', body: readFixture('anthropic', 'error-overloaded.json') });
    const overloaded = await sendUpstream(built);
    expect(overloaded.status).toBe(529);
    expect(anthropicAdapter.errors.parse(overloaded.status, overloaded.text)).toEqual({ message: 'Overloaded', code: 'overloaded_error' });
    upstream.reply({ status: 400, contentType: 'application/json', body: readFixture('anthropic', 'error-invalid-request.json') });
    const invalid = await sendUpstream(built);
    expect(anthropicAdapter.errors.parse(invalid.status, invalid.text)).toEqual({
      message: 'max_tokens: Field required',
      code: 'invalid_request_error',
    });
    expect(anthropicAdapter.errors.parse(502, '<html>Bad gateway</html>')).toEqual({ message: '<html>Bad gateway</html>', code: null });
  });

  it('passes a native Messages body through with only the model changed', async () => {
    const native = {
      model: 'my-claude',
      max_tokens: 100,
      system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
      thinking: { type: 'enabled', budget_tokens: 2048 },
    };
    const built = await anthropicAdapter.native!.buildRequest(
      native,
      call('claude-sonnet-4-20250514', {}, { 'anthropic-beta': 'interleaved-thinking-2025-05-14' }),
    );
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('anthropic', 'chat-response.json') });
    const response = await sendUpstream(built);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(sent.json).toEqual({ ...native, model: 'claude-sonnet-4-20250514' });
    expect(anthropicAdapter.native!.readUsage(JSON.parse(response.text))).toEqual({
      promptTokens: 1320,
      completionTokens: 85,
      cachedTokens: 1000,
      cacheCreationTokens: 200,
    });
  });

  it('is registered as type 14 with its metadata', () => {
    expect(adapterForType(14)).toBe(anthropicAdapter);
    const meta = listChannelTypes().find((entry) => entry.type === 14)!;
    expect(meta).toMatchObject({
      slug: 'anthropic',
      displayName: 'Anthropic Claude',
      defaultBaseURL: 'https://api.anthropic.com',
      hasBalance: false,
    });
    expect(meta.defaultModels).toContain('claude-sonnet-4-20250514');
    expect(
      anthropicAdapter.api.url('models', { baseURL: 'https://api.anthropic.com/v1/', key: '', headers: {}, other: '', dispatcher }, ''),
    ).toBe('https://api.anthropic.com/v1/models');
  });
});
