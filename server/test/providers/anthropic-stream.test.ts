import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { anthropicAdapter } from '../../src/relay/providers/anthropic/index.js';
import type { ChatCall, ConvertedEvents } from '../../src/relay/providers/types.js';
import { claudeTestOptions } from './helpers/adapter-options.js';
import { readFixture, sendUpstream, startFixtureUpstream, type FixtureUpstream } from './helpers/fixture-upstream.js';
import { splitSseEvents } from './helpers/sse-events.js';

let upstream: FixtureUpstream;
const dispatcher = new Agent();
beforeAll(async () => {
  upstream = await startFixtureUpstream();
});
afterAll(async () => {
  await upstream.close();
  await dispatcher.close();
});

const streamCall = (): ChatCall => ({
  upstreamModel: 'claude-sonnet-4-20250514',
  isStream: true,
  target: { baseURL: upstream.url, key: 'sk-ant-test', headers: {}, other: '', dispatcher },
  options: claudeTestOptions(),
});

async function fetchStream(fixture: string) {
  const built = await anthropicAdapter.chatConverter!.buildRequest(
    { messages: [{ role: 'user', content: 'Weather?' }], stream: false },
    streamCall(),
  );
  upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('anthropic', fixture) });
  const response = await sendUpstream(built);
  return { sent: upstream.requests.at(-1)!, events: splitSseEvents(response.text) };
}

describe('Anthropic stream → OpenAI chunks', () => {
  it('converts thinking, text and two tool calls, with role first and one finish_reason', async () => {
    const { sent, events } = await fetchStream('chat-stream.chunks.txt');
    expect(sent.json).toMatchObject({ stream: true, model: 'claude-sonnet-4-20250514', max_tokens: 8192 });
    const transform = anthropicAdapter.chatConverter!.createStreamTransform('claude-sonnet-4');
    const results: ConvertedEvents[] = events.map((event) => transform.onEvent(event));
    results.push(transform.finish());
    const chunks = results.flatMap((result) => result.chunks) as any[];
    const deltas = chunks.map((chunk) => chunk.choices[0].delta);

    expect(
      chunks.every(
        (chunk) => chunk.id === 'msg_01Stream7xq' && chunk.object === 'chat.completion.chunk' && chunk.model === 'claude-sonnet-4',
      ),
    ).toBe(true);
    expect(deltas[0]).toEqual({ role: 'assistant', content: '' });
    expect(deltas.slice(1).some((delta) => 'role' in delta)).toBe(false);
    expect(
      deltas
        .filter((d) => d.reasoning_content)
        .map((d) => d.reasoning_content)
        .join(''),
    ).toBe('Need the forecast.');
    expect(
      deltas
        .filter((d) => d.content)
        .map((d) => d.content)
        .join(''),
    ).toBe('Checking now.');
    const toolDeltas = deltas.filter((d) => d.tool_calls).map((d) => d.tool_calls[0]);
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(
      toolDeltas
        .filter((t) => t.index === 0)
        .map((t) => t.function.arguments)
        .join(''),
    ).toBe('{"city": "Paris"}');
    expect(toolDeltas.find((t) => t.index === 1 && t.id)).toEqual({
      index: 1,
      id: 'toolu_02Second',
      type: 'function',
      function: { name: 'get_time', arguments: '' },
    });
    expect(
      toolDeltas
        .filter((t) => t.index === 1)
        .map((t) => t.function.arguments)
        .join(''),
    ).toBe('{"tz":"Europe/Paris"}');
    const finishes = chunks.map((chunk) => chunk.choices[0].finish_reason).filter(Boolean);
    expect(finishes).toEqual(['tool_calls']);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');

    // message_start: 42 input + 300 cache read + 10 cache write, output 1 → message_delta: 57 (cumulative, not summed).
    expect(results[0]!.usage).toEqual({ promptTokens: 352, completionTokens: 1, cachedTokens: 300, cacheCreationTokens: 10 });
    expect(results.at(-1)!.usage).toEqual({ promptTokens: 352, completionTokens: 57, cachedTokens: 300, cacheCreationTokens: 10 });
    expect(results.map((r) => r.text).join('')).toBe(
      'Need the forecast.Checking now.get_weather{"city": "Paris"}get_time{"tz":"Europe/Paris"}',
    );
  });

  it('throws a retryable UpstreamError on an in-stream overloaded_error', async () => {
    const { events } = await fetchStream('stream-error.chunks.txt');
    const transform = anthropicAdapter.chatConverter!.createStreamTransform('claude-sonnet-4');
    const before = events.slice(0, 3).flatMap((event) => transform.onEvent(event).chunks) as any[];
    expect(before.map((chunk) => chunk.choices[0].delta.content).join('')).toBe('Hel');
    let thrown: unknown;
    try {
      transform.onEvent(events[3]!);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect(thrown).toMatchObject({ upstreamStatus: 529, retryable: true, upstreamCode: 'overloaded_error', message: 'Overloaded' });
  });

  it('reads usage and text from native events for pass-through', async () => {
    const { events } = await fetchStream('chat-stream.chunks.txt');
    const reader = anthropicAdapter.native!.createUsageReader();
    const seen = events.map((event) => reader.onEvent(event));
    expect(seen[0]!.usage).toEqual({ promptTokens: 352, completionTokens: 1, cachedTokens: 300, cacheCreationTokens: 10 });
    expect(seen.at(-1)!.usage).toEqual({ promptTokens: 352, completionTokens: 57, cachedTokens: 300, cacheCreationTokens: 10 });
    expect(seen.map((s) => s.text).join('')).toBe('Need the forecast.Checking now.{"city": "Paris"}{"tz":"Europe/Paris"}');
  });

  it('keeps message_start counters when a later message_delta repeats them as zero, and never goes negative', () => {
    const transform = anthropicAdapter.chatConverter!.createStreamTransform('m');
    transform.onEvent({
      event: 'message_start',
      data: JSON.stringify({
        type: 'message_start',
        message: { id: 'msg_x', usage: { input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 1 } },
      }),
    });
    const last = transform.onEvent({
      event: 'message_delta',
      data: JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'max_tokens' },
        usage: { input_tokens: 0, cache_read_input_tokens: 0, output_tokens: -3 },
      }),
    });
    expect(last.usage).toEqual({ promptTokens: 12, completionTokens: 1, cachedTokens: 7, cacheCreationTokens: 0 });
    expect((last.chunks[0] as any).choices[0].finish_reason).toBe('length');
  });
});
