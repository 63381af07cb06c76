import { describe, expect, it } from 'vitest';
import { claudeFormat } from '../../src/relay/formats/anthropic/index.js';
import { anthropicAdapter } from '../../src/relay/providers/anthropic/index.js';
import { claudeTestOptions } from './helpers/adapter-options.js';
import { splitSseEvents } from './helpers/sse-events.js';

const messagesRequest = {
  model: 'claude-sonnet-4-20250514',
  max_tokens: 1024,
  system: [
    { type: 'text', text: 'You are a weather bot.' },
    { type: 'text', text: 'Be brief.' },
  ],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Use the tool.', signature: 'sig-1' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18°C' }] },
        { type: 'text', text: 'Thanks!' },
      ],
    },
  ],
  stop_sequences: ['END'],
  temperature: 0.5,
  top_p: 0.9,
  top_k: 10,
  stream: true,
  tools: [
    { name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
  ],
  tool_choice: { type: 'any', disable_parallel_tool_use: true },
  thinking: { type: 'enabled', budget_tokens: 8000 },
  metadata: { user_id: 'u-1' },
};

describe('Claude inbound format: request', () => {
  it('converts a Messages request to the canonical OpenAI body', () => {
    expect(claudeFormat.modelOf(messagesRequest, {})).toBe('claude-sonnet-4-20250514');
    expect(claudeFormat.isStream(messagesRequest, {})).toBe(true);
    expect(claudeFormat.toOpenAI(messagesRequest, {})).toEqual({
      model: 'claude-sonnet-4-20250514',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1024,
      stop: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 10,
      messages: [
        { role: 'system', content: 'You are a weather bot.\nBe brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          reasoning_content: 'Use the tool.',
          reasoning_signature: 'sig-1',
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18°C' },
        { role: 'user', content: 'Thanks!' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather by city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      reasoning_effort: 'medium',
      user: 'u-1',
    });
  });

  it('round trips through the Anthropic adapter back to an equivalent Messages request', async () => {
    const openAi = claudeFormat.toOpenAI({ ...messagesRequest, thinking: undefined, stream: false }, {});
    const call = {
      upstreamModel: 'claude-sonnet-4-20250514',
      isStream: false,
      target: { baseURL: 'https://api.anthropic.com', key: 'k', headers: {}, other: '', dispatcher: undefined as never },
      options: claudeTestOptions(),
    };
    const back = (await anthropicAdapter.chatConverter!.buildRequest(openAi, call)).body as any;
    expect(back.system).toEqual([{ type: 'text', text: 'You are a weather bot.\nBe brief.' }]);
    expect(back.messages).toEqual([
      messagesRequest.messages[0],
      messagesRequest.messages[1],
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
          { type: 'text', text: 'Thanks!' },
        ],
      },
    ]);
    expect(back).toMatchObject({
      max_tokens: 1024,
      stop_sequences: ['END'],
      temperature: 0.5,
      top_k: 10,
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
    expect(back.tools).toEqual(messagesRequest.tools);
  });

  it('maps tool_choice kinds, string system, tool errors and url images', () => {
    const body = claudeFormat.toOpenAI(
      {
        model: 'm',
        max_tokens: 5,
        system: 'Plain system',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't', content: 'failed', is_error: true },
              { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
            ],
          },
        ],
        tools: [
          { name: 'f', input_schema: { type: 'object' } },
          { type: 'web_search_20250305', name: 'web_search' },
        ],
        tool_choice: { type: 'tool', name: 'f' },
      },
      {},
    );
    expect(body.messages).toEqual([
      { role: 'system', content: 'Plain system' },
      { role: 'tool', tool_call_id: 't', content: 'Error: failed' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
    ]);
    expect(body.tools).toHaveLength(1);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'f' } });
    expect(body.stream).toBe(false);
    expect(body).not.toHaveProperty('stream_options');
  });
});

describe('Claude inbound format: responses', () => {
  it('converts a chat.completion to a Messages response with Claude usage semantics', () => {
    const completion = {
      id: 'chatcmpl-abc123',
      object: 'chat.completion',
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Calling.',
            reasoning_content: 'Think.',
            tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
        },
      ],
    };
    expect(
      claudeFormat.fromOpenAI(completion, 'claude-sonnet-4-20250514', {
        promptTokens: 1320,
        completionTokens: 85,
        cachedTokens: 1000,
        cacheCreationTokens: 200,
      }),
    ).toEqual({
      id: 'msg_abc123',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [
        { type: 'thinking', thinking: 'Think.', signature: '' },
        { type: 'text', text: 'Calling.' },
        { type: 'tool_use', id: 'call_9', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 85, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200 },
    });
    const length = claudeFormat.fromOpenAI({ choices: [{ finish_reason: 'length', message: { content: 'x' } }] }, 'm', {
      promptTokens: 3,
      completionTokens: 1,
      cachedTokens: 5,
    }) as any;
    expect(length.stop_reason).toBe('max_tokens');
    expect(length.usage).toEqual({ input_tokens: 0, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 });
  });

  it('writes Anthropic error bodies', () => {
    expect(claudeFormat.errorBody(429, 'slow down', null)).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
    expect(claudeFormat.errorBody(401, 'bad key', 'invalid_api_key')).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'bad key' },
    });
    expect(claudeFormat.errorBody(529, 'busy', 'overloaded_error')).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'busy' },
    });
    expect(claudeFormat.errorBody(502, 'upstream', null)).toEqual({ type: 'error', error: { type: 'api_error', message: 'upstream' } });
    expect(claudeFormat.errorBody(400, 'nope', null)).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'nope' } });
  });

  it('re-encodes OpenAI chunks as Anthropic SSE with correct block indexes', () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: 'chatcmpl-s1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const encoder = claudeFormat.createStreamEncoder('claude-sonnet-4');
    let text = '';
    for (const c of [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Hmm.' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      { id: 'chatcmpl-s1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 30, completion_tokens: 12 } },
    ])
      text += encoder.onChunk(c);
    text += encoder.finish({ promptTokens: 30, completionTokens: 12, cachedTokens: 8 });
    const events = splitSseEvents(text).map((event) => ({ event: event.event, data: JSON.parse(event.data) }));
    expect(events.every((event) => event.event === event.data.type)).toBe(true);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]!.data.message).toMatchObject({ id: 'msg_s1', role: 'assistant', model: 'claude-sonnet-4', content: [] });
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => [e.data.index, e.data.content_block]);
    expect(starts).toEqual([
      [0, { type: 'thinking', thinking: '' }],
      [1, { type: 'text', text: '' }],
      [2, { type: 'tool_use', id: 'call_a', name: 'f', input: {} }],
      [3, { type: 'tool_use', id: 'call_b', name: 'g', input: {} }],
    ]);
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => [e.data.index, e.data.delta]);
    expect(deltas).toEqual([
      [0, { type: 'thinking_delta', thinking: 'Hmm.' }],
      [1, { type: 'text_delta', text: 'Hel' }],
      [1, { type: 'text_delta', text: 'lo' }],
      [2, { type: 'input_json_delta', partial_json: '{"x":' }],
      [2, { type: 'input_json_delta', partial_json: '1}' }],
      [3, { type: 'input_json_delta', partial_json: '{}' }],
    ]);
    expect(events.filter((e) => e.event === 'content_block_stop').map((e) => e.data.index)).toEqual([0, 1, 2, 3]);
    expect(events.at(-2)!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 22, output_tokens: 12, cache_read_input_tokens: 8, cache_creation_input_tokens: 0 },
    });
  });

  it('round trips an Anthropic upstream stream: Claude SSE → OpenAI chunks → Claude SSE', () => {
    const upstream = [
      { type: 'message_start', message: { id: 'msg_up', usage: { input_tokens: 9, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi there' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } },
      { type: 'message_stop' },
    ];
    const transform = anthropicAdapter.chatConverter!.createStreamTransform('claude-x');
    const encoder = claudeFormat.createStreamEncoder('claude-x');
    let text = '';
    let usage = null;
    for (const event of upstream) {
      const converted = transform.onEvent({ event: event.type, data: JSON.stringify(event) });
      for (const c of converted.chunks) text += encoder.onChunk(c);
      usage = converted.usage ?? usage;
    }
    text += encoder.finish(usage!);
    const events = splitSseEvents(text).map((event) => JSON.parse(event.data));
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0].message.id).toBe('msg_up');
    expect(events[2].delta).toEqual({ type: 'text_delta', text: 'Hi there' });
    expect(events[4]).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 9, output_tokens: 3 } });
  });
});
