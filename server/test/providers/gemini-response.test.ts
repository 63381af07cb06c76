import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { geminiAdapter } from '../../src/relay/providers/gemini/index.js';
import { readGeminiUsage } from '../../src/relay/providers/gemini/usage.js';
import type { ChatCall, ConvertedEvents } from '../../src/relay/providers/types.js';
import { geminiTestOptions } from './helpers/gemini-options.js';
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

const converter = geminiAdapter.chatConverter!;
const call = (model: string, isStream: boolean): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: { baseURL: upstream.url, key: 'AIza-k', headers: {}, other: '', dispatcher },
  options: geminiTestOptions(),
});

/** Sends a chat request to the mock answering with `fixture`, returns the raw answer text. */
async function roundTrip(fixture: string, model: string, isStream: boolean, status = 200): Promise<{ status: number; text: string }> {
  const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'hi' }] }, call(model, isStream));
  upstream.reply({ status, contentType: isStream ? 'text/event-stream' : 'application/json', body: readFixture('gemini', fixture) });
  return sendUpstream(built);
}

function runStream(text: string, model: string): { all: ConvertedEvents[]; chunks: any[] } {
  const transform = converter.createStreamTransform(model);
  const all = splitSseEvents(text).map((event) => transform.onEvent(event));
  all.push(transform.finish());
  return { all, chunks: all.flatMap((converted) => converted.chunks) };
}

describe('Gemini adapter: response → OpenAI', () => {
  it('turns text and thought parts into content and reasoning_content, with thoughts billed as completion', async () => {
    const answer = await roundTrip('generate-text.json', 'gemini-2.5-flash', false);
    const { completion, usage } = converter.parseResponse(JSON.parse(answer.text), 'gemini-2.5-flash');
    expect(usage).toEqual({ promptTokens: 120, completionTokens: 59, cachedTokens: 64 });
    expect(completion).toMatchObject({
      id: 'chatcmpl-resp-text-1',
      object: 'chat.completion',
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: 'Crisp leaves drift and fall,',
            reasoning_content: 'The user wants a haiku about autumn.',
          },
        },
      ],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 59,
        total_tokens: 179,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 50 },
      },
    });
    expect(typeof completion.created).toBe('number');
    expect(geminiAdapter.chat.readUsage(JSON.parse(answer.text))).toEqual(usage);
  });

  it('turns functionCall parts into tool_calls with finish_reason tool_calls', async () => {
    const answer = await roundTrip('generate-tool-call.json', 'gemini-2.5-pro', false);
    const { completion, usage } = converter.parseResponse(JSON.parse(answer.text), 'gemini-2.5-pro');
    const choice = (completion.choices as any[])[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      },
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_time', arguments: '{"zone":"Europe/Paris"}' },
      },
    ]);
    expect(choice.message.tool_calls[0].id).not.toBe(choice.message.tool_calls[1].id);
    expect(usage).toEqual({ promptTokens: 80, completionTokens: 24, cachedTokens: 0 });
  });

  it('maps MAX_TOKENS to length, RECITATION to content_filter and counts tool-use prompt tokens once', async () => {
    const answer = await roundTrip('generate-max-tokens.json', 'gemini-2.0-flash', false);
    const { completion, usage } = converter.parseResponse(JSON.parse(answer.text), 'gemini-2.0-flash');
    expect((completion.choices as any[]).map((choice) => [choice.index, choice.finish_reason, choice.message.content])).toEqual([
      [0, 'length', 'Once upon a'],
      [1, 'content_filter', 'Unsafe'],
    ]);
    expect(usage).toEqual({ promptTokens: 15, completionTokens: 8, cachedTokens: 0 });
  });

  it('answers a blocked prompt with an empty content_filter choice and prompt-only usage', async () => {
    const answer = await roundTrip('generate-blocked.json', 'gemini-2.5-flash', false);
    const { completion, usage } = converter.parseResponse(JSON.parse(answer.text), 'gemini-2.5-flash');
    expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }]);
    expect(usage).toEqual({ promptTokens: 15, completionTokens: 0, cachedTokens: 0 });
  });

  it('renders inline image parts as markdown data URLs', () => {
    const { completion } = converter.parseResponse(
      {
        candidates: [
          { content: { parts: [{ text: 'Here: ' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }, finishReason: 'STOP' },
        ],
      },
      'gemini-2.0-flash-exp-image-generation',
    );
    expect((completion.choices as any[])[0].message.content).toBe('Here: ![image](data:image/png;base64,AAAA)');
  });

  it('reads usage defensively: never negative, cached capped at prompt, null without metadata', () => {
    expect(readGeminiUsage(undefined)).toBeNull();
    expect(readGeminiUsage({ promptTokenCount: -3, candidatesTokenCount: 'x', cachedContentTokenCount: 99 })).toEqual({
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
    });
    expect(readGeminiUsage({ promptTokenCount: 10, cachedContentTokenCount: 40, candidatesTokenCount: 2 })).toEqual({
      promptTokens: 10,
      completionTokens: 2,
      cachedTokens: 10,
    });
    expect(readGeminiUsage({ promptTokenCount: 10, totalTokenCount: 25, thoughtsTokenCount: 15 })).toEqual({
      promptTokens: 10,
      completionTokens: 15,
      cachedTokens: 0,
    });
  });

  it('parses the Google error envelope', async () => {
    const answer = await roundTrip('error-400.json', 'gemini-2.5-flash', false, 400);
    expect(answer.status).toBe(400);
    expect(geminiAdapter.errors.parse(400, answer.text)).toEqual({
      message: 'API key not valid. Please pass a valid API key.',
      code: 'INVALID_ARGUMENT',
      status: 401,
    }); // a bad key, answered 400 by Google, is the key's fault
    expect(geminiAdapter.errors.parse(502, '[{"error":{"code":502,"message":"bad gateway"}}]')).toEqual({
      message: 'bad gateway',
      code: '502',
    });
    expect(geminiAdapter.errors.parse(500, '<html>oops</html>')).toEqual({ message: '<html>oops</html>', code: null });
  });
});

describe('Gemini adapter: stream → OpenAI chunks', () => {
  it('streams reasoning, then text, then one finish chunk; the last usageMetadata wins', async () => {
    const answer = await roundTrip('stream-text.chunks.txt', 'gemini-2.5-flash', true);
    const { all, chunks } = runStream(answer.text, 'gemini-2.5-flash');
    expect(chunks.map((chunk) => [chunk.choices[0].delta, chunk.choices[0].finish_reason])).toEqual([
      [{ role: 'assistant', reasoning_content: 'Thinking about leaves.' }, null],
      [{ content: 'Crisp leaves ' }, null],
      [{ content: 'drift and fall.' }, null],
      [{}, 'stop'],
    ]);
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-stream-abc']));
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gemini-2.5-flash')).toBe(true);
    expect(all.map((converted) => converted.text).join('')).toBe('Thinking about leaves.Crisp leaves drift and fall.');
    expect(all.map((converted) => converted.usage)).toEqual([
      { promptTokens: 30, completionTokens: 0, cachedTokens: 0 },
      { promptTokens: 30, completionTokens: 15, cachedTokens: 0 },
      { promptTokens: 30, completionTokens: 19, cachedTokens: 16 },
      { promptTokens: 30, completionTokens: 19, cachedTokens: 16 },
    ]);
  });

  it('streams function calls as indexed tool_calls deltas and finishes with tool_calls', async () => {
    const answer = await roundTrip('stream-tool-call.chunks.txt', 'gemini-2.5-pro', true);
    const { all, chunks } = runStream(answer.text, 'gemini-2.5-pro');
    expect(chunks).toHaveLength(3);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: 'Let me check.' });
    expect(chunks[1].choices[0].delta.tool_calls).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
    ]);
    expect(chunks[2].choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' });
    expect(all.at(-1)!.usage).toEqual({ promptTokens: 40, completionTokens: 20, cachedTokens: 0 });
  });

  it('finishes a stream cut before any finishReason with stop, and throws an UpstreamError on an error event', async () => {
    const cut = runStream('data: {"candidates":[{"content":{"parts":[{"text":"Hal"}]}}]}\n\n', 'gemini-2.5-flash');
    expect(cut.chunks.map((chunk) => chunk.choices[0].finish_reason)).toEqual([null, 'stop']);
    expect(cut.all.at(-1)!.usage).toBeNull();
    const answer = await roundTrip('stream-error.chunks.txt', 'gemini-2.5-flash', true);
    const transform = converter.createStreamTransform('gemini-2.5-flash');
    const [first, second] = splitSseEvents(answer.text);
    expect(transform.onEvent(first!).chunks).toHaveLength(1);
    let thrown: unknown;
    try {
      transform.onEvent(second!);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect(thrown).toMatchObject({
      status: 503,
      retryable: true,
      message: 'The model is overloaded. Please try again later.',
      upstreamCode: 'UNAVAILABLE',
    });
    expect(() => converter.createStreamTransform('m').onEvent({ event: null, data: '{"candidates":[' })).toThrow(UpstreamError);
  });

  it('reads usage and text from native stream events without changing them', async () => {
    const answer = await roundTrip('stream-text.chunks.txt', 'gemini-2.5-flash', true);
    const reader = geminiAdapter.native!.createUsageReader();
    const results = splitSseEvents(answer.text).map((event) => reader.onEvent(event));
    expect(results.map((result) => result.text).join('')).toBe('Thinking about leaves.Crisp leaves drift and fall.');
    expect(results.at(-1)!.usage).toEqual({ promptTokens: 30, completionTokens: 19, cachedTokens: 16 });
    expect(geminiAdapter.native!.readUsage(JSON.parse(readFixture('gemini', 'generate-text.json')))).toEqual({
      promptTokens: 120,
      completionTokens: 59,
      cachedTokens: 64,
    });
    const transform = geminiAdapter.chatStream.createTransform();
    const verdict = transform.onChunk(JSON.parse(splitSseEvents(answer.text)[2]!.data));
    expect(verdict).toEqual({
      text: 'drift and fall.',
      usage: { promptTokens: 30, completionTokens: 19, cachedTokens: 16 },
      isUsageOnly: false,
      isModified: false,
    });
  });
});
