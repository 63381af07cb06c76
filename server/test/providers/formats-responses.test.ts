import { describe, expect, it } from 'vitest';
import {
  chatToResponses,
  createResponsesStreamEncoder,
  responsesFormat,
  responsesPassThrough,
  responsesToChat,
} from '../../src/relay/formats/responses/index.js';
import { emptyOptions, makeTarget, splitSse } from './helpers/recorded-upstream.js';

describe('OpenAI Responses inbound format', () => {
  it('converts a Responses request to a chat body', () => {
    const body = responsesFormat.toOpenAI(
      {
        model: 'gpt-4o',
        instructions: 'Be brief.',
        stream: true,
        max_output_tokens: 50,
        temperature: 0.5,
        top_p: 0.9,
        reasoning: { effort: 'low' },
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Look' },
              { type: 'input_image', image_url: 'https://x/y.png' },
            ],
          },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
          { type: 'function_call_output', call_id: 'c1', output: 'ok' },
        ],
        tools: [{ type: 'function', name: 'f', description: 'F', parameters: { type: 'object' } }, { type: 'web_search' }],
        tool_choice: { type: 'function', name: 'f' },
      },
      {},
    );
    expect(body).toEqual({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
      temperature: 0.5,
      top_p: 0.9,
      reasoning_effort: 'low',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
      tools: [{ type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
    });
    expect(responsesToChat({ model: 'm', input: 'hi' }).messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(responsesFormat.isStream({ stream: true }, {})).toBe(true);
    expect(responsesFormat.modelOf({ model: 'gpt-5' }, {})).toBe('gpt-5');
  });

  it('converts a chat.completion to a Responses object with usage details', () => {
    const completion = {
      created: 1,
      choices: [
        {
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Calling.',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
        },
      ],
    };
    const response = chatToResponses(completion, 'gpt-4o', { promptTokens: 10, completionTokens: 5, cachedTokens: 3 }) as any;
    expect(response.id).toMatch(/^resp_/);
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-4o',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.', annotations: [] }] },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
      ],
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 3 }, output_tokens: 5, total_tokens: 15 },
    });
    const cut = chatToResponses({ choices: [{ finish_reason: 'length', message: { content: 'x' } }] }, 'm', {
      promptTokens: 1,
      completionTokens: 1,
      cachedTokens: 0,
    }) as any;
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('encodes chat chunks as Responses SSE events with increasing sequence numbers', () => {
    const encoder = createResponsesStreamEncoder('gpt-4o');
    let text = '';
    text += encoder.onChunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] });
    text += encoder.onChunk({ choices: [{ index: 0, delta: { content: 'lo' } }] });
    text += encoder.onChunk({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_9', function: { name: 'f', arguments: '{"a"' } }] } }],
    });
    text += encoder.onChunk({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, finish_reason: 'tool_calls' }],
    });
    text += encoder.finish({ promptTokens: 7, completionTokens: 4, cachedTokens: 2 });
    const events = splitSse(text).map((event) => ({ name: event.event, data: JSON.parse(event.data) }));
    expect(events.map((event) => event.name)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(events.every((event) => event.data.type === event.name)).toBe(true);
    expect(events[6]!.data.text).toBe('Hello');
    expect(events[12]!.data.arguments).toBe('{"a":1}');
    const completed = events.at(-1)!.data.response;
    expect(completed.usage).toEqual({
      input_tokens: 7,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 11,
    });
    expect(completed.output.map((item: any) => item.type)).toEqual(['message', 'function_call']);
    expect(completed.id).toBe(events[0]!.data.response.id);
  });

  it('round-trips: the converted request and re-encoded answer agree', () => {
    const chat = responsesToChat({ model: 'm', input: [{ role: 'user', content: 'ping' }] });
    expect(chat.messages).toEqual([{ role: 'user', content: 'ping' }]);
    const response = responsesFormat.fromOpenAI({ choices: [{ finish_reason: 'stop', message: { content: 'pong' } }] }, 'm', {
      promptTokens: 1,
      completionTokens: 1,
      cachedTokens: 0,
    }) as any;
    const again = responsesToChat({ model: 'm', input: [{ role: 'user', content: 'ping' }, ...response.output] });
    expect(again.messages).toEqual([
      { role: 'user', content: 'ping' },
      { role: 'assistant', content: 'pong' },
    ]);
    expect(responsesFormat.errorBody(429, 'slow down', 'rate_limit')).toEqual({
      error: { message: 'slow down', type: 'rate_limit_error', param: null, code: 'rate_limit' },
    });
  });

  it('passes Responses through natively and reads usage from JSON and SSE', async () => {
    const built = await responsesPassThrough.buildRequest(
      { model: 'alias', input: 'hi' },
      { upstreamModel: 'gpt-4o', isStream: false, target: makeTarget('https://api.openai.com', 'sk-1'), options: emptyOptions },
    );
    expect(built).toEqual({
      url: 'https://api.openai.com/v1/responses',
      headers: { authorization: 'Bearer sk-1' },
      body: { model: 'gpt-4o', input: 'hi' },
    });
    expect(
      responsesPassThrough.readUsage({ usage: { input_tokens: 5, output_tokens: 2, input_tokens_details: { cached_tokens: 1 } } }),
    ).toEqual({ promptTokens: 5, completionTokens: 2, cachedTokens: 1 });
    const reader = responsesPassThrough.createUsageReader();
    expect(reader.onEvent({ event: 'response.output_text.delta', data: '{"type":"response.output_text.delta","delta":"Hi"}' })).toEqual({
      usage: null,
      text: 'Hi',
    });
    expect(
      reader.onEvent({
        event: 'response.completed',
        data: '{"type":"response.completed","response":{"usage":{"input_tokens":9,"output_tokens":3}}}',
      }).usage,
    ).toEqual({ promptTokens: 9, completionTokens: 3, cachedTokens: 0 });
  });
});
