import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { geminiFormat, listGeminiModels, parseModelPath } from '../../src/relay/formats/gemini/index.js';
import { geminiAdapter } from '../../src/relay/providers/gemini/index.js';
import { geminiTestOptions } from './helpers/gemini-options.js';
import { readFixture } from './helpers/fixture-upstream.js';
import { splitSseEvents } from './helpers/sse-events.js';

const dispatcher = new Agent();
afterAll(() => dispatcher.close());
const params = { model: 'gemini-2.5-flash:streamGenerateContent' };
const inbound = () => JSON.parse(readFixture('gemini', 'inbound-request.json')) as Record<string, unknown>;
const framesOf = (text: string) => splitSseEvents(text).map((event) => JSON.parse(event.data));

describe('Gemini inbound format: request → OpenAI', () => {
  it('reads model and action from the path params in each accepted shape', () => {
    expect(geminiFormat.modelOf({}, params)).toBe('gemini-2.5-flash');
    expect(geminiFormat.isStream({}, params)).toBe(true);
    expect(geminiFormat.isStream({}, { model: 'gemini-2.5-flash', action: 'generateContent' })).toBe(false);
    expect(parseModelPath({ modelAction: 'models/gemini-2.5-pro:generateContent' })).toEqual({
      model: 'gemini-2.5-pro',
      action: 'generateContent',
    });
    expect(parseModelPath({ model: 'gemini-2.5-pro' })).toEqual({ model: 'gemini-2.5-pro', action: 'generateContent' });
  });

  it('converts contents, system, tools, tool config and generation config to the canonical body', () => {
    const body = geminiFormat.toOpenAI(inbound(), params);
    const messages = body.messages as any[];
    const callId = messages[2].tool_calls[0].id;
    expect(body).toEqual({
      model: 'gemini-2.5-flash',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a weather bot.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: callId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: callId, content: '{"temp":18,"sky":"sunny"}' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And tomorrow?' },
            { type: 'image_url', image_url: { url: 'https://example.com/forecast.pdf' } },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather',
            parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      temperature: 0.4,
      top_p: 0.8,
      top_k: 20,
      max_tokens: 512,
      n: 1,
      stop: ['END'],
      response_format: { type: 'json_object' },
      reasoning_effort: 'medium',
    });
    expect(callId).toMatch(/^call_/);
  });

  it('round-trips through the Gemini provider converter back to an equivalent generateContent body', async () => {
    const original = inbound();
    const canonical = geminiFormat.toOpenAI(original, { model: 'gemini-2.5-flash', action: 'generateContent' });
    const built = await geminiAdapter.chatConverter!.buildRequest(canonical, {
      upstreamModel: 'gemini-2.5-flash',
      isStream: false,
      options: geminiTestOptions(),
      target: { baseURL: 'https://generativelanguage.googleapis.com', key: 'k', headers: {}, other: '', dispatcher },
    });
    const sent = built.body as any;
    expect(sent.systemInstruction).toEqual(original.systemInstruction);
    expect(sent.contents[0]).toEqual((original.contents as any[])[0]);
    expect(sent.contents[1]).toEqual({ role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] });
    expect(sent.contents[2]).toEqual((original.contents as any[])[2]);
    expect(sent.contents[3].parts[1]).toEqual({ fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/forecast.pdf' } });
    expect(sent.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather',
            parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
          },
        ],
      },
    ]);
    expect(sent.toolConfig).toEqual(original.toolConfig);
    expect(sent.generationConfig).toEqual({
      temperature: 0.4,
      topP: 0.8,
      topK: 20,
      maxOutputTokens: 512,
      stopSequences: ['END'],
      candidateCount: 1,
      responseMimeType: 'application/json',
      thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    });
  });
});

describe('Gemini inbound format: OpenAI answers → Gemini', () => {
  it('converts a completion to candidates, finishReason, usageMetadata and modelVersion', () => {
    const completion = {
      id: 'chatcmpl-xyz',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Let me look.',
            reasoning_content: 'Need data.',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
          },
        },
        { index: 1, finish_reason: 'length', message: { role: 'assistant', content: '' } },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 30, total_tokens: 80, completion_tokens_details: { reasoning_tokens: 10 } },
    };
    expect(geminiFormat.fromOpenAI(completion, 'gemini-2.5-flash', { promptTokens: 50, completionTokens: 30, cachedTokens: 20 })).toEqual({
      candidates: [
        {
          index: 0,
          finishReason: 'STOP',
          content: {
            role: 'model',
            parts: [
              { text: 'Need data.', thought: true },
              { text: 'Let me look.' },
              { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
            ],
          },
        },
        { index: 1, finishReason: 'MAX_TOKENS', content: { role: 'model', parts: [{ text: '' }] } },
      ],
      usageMetadata: {
        promptTokenCount: 50,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 10,
        totalTokenCount: 80,
        cachedContentTokenCount: 20,
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'xyz',
    });
  });

  it('round-trips a recorded Gemini response through the provider converter with the same usage', () => {
    const recorded = JSON.parse(readFixture('gemini', 'generate-text.json'));
    const { completion, usage } = geminiAdapter.chatConverter!.parseResponse(recorded, 'gemini-2.5-flash');
    const back = geminiFormat.fromOpenAI(completion, 'gemini-2.5-flash', usage!) as any;
    expect(back.candidates[0].content.parts).toEqual(recorded.candidates[0].content.parts);
    expect(back.candidates[0].finishReason).toBe('STOP');
    const { promptTokenCount, candidatesTokenCount, totalTokenCount, cachedContentTokenCount, thoughtsTokenCount } = recorded.usageMetadata;
    expect(back.usageMetadata).toEqual({
      promptTokenCount,
      candidatesTokenCount,
      totalTokenCount,
      cachedContentTokenCount,
      thoughtsTokenCount,
    });
    expect(back.responseId).toBe('resp-text-1');
  });

  it('encodes stream chunks as data frames, holding tool-call arguments until complete and usage to the end', () => {
    const encoder = geminiFormat.createStreamEncoder('gemini-2.5-flash');
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: 'chatcmpl-s1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const out = [
      encoder.onChunk(chunk({ role: 'assistant', content: '' })),
      encoder.onChunk(chunk({ reasoning_content: 'Hmm.' })),
      encoder.onChunk(chunk({ content: 'Checking' })),
      encoder.onChunk(
        chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }] }),
      ),
      encoder.onChunk(chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] })),
      encoder.onChunk(chunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'get_time', arguments: '{}' } }] })),
      encoder.onChunk(chunk({}, 'tool_calls')),
      encoder.onChunk({
        id: 'chatcmpl-s1',
        choices: [],
        usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16, completion_tokens_details: { reasoning_tokens: 2 } },
      }),
    ];
    expect(out[0]).toBe('');
    expect(out[3]).toBe('');
    expect(out[4]).toBe('');
    expect(out[7]).toBe('');
    const last = encoder.finish({ promptTokens: 9, completionTokens: 7, cachedTokens: 0 });
    expect(out.join('') + last).toMatch(/^(data: \{.*\}\n\n)+$/);
    const frames = framesOf(out.join('') + last);
    expect(frames.map((frame) => frame.candidates[0].content.parts)).toEqual([
      [{ text: 'Hmm.', thought: true }],
      [{ text: 'Checking' }],
      [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }, { functionCall: { name: 'get_time', args: {} } }],
      [{ text: '' }],
    ]);
    expect(frames.slice(0, 3).every((frame) => frame.candidates[0].finishReason === undefined && frame.usageMetadata === undefined)).toBe(
      true,
    );
    expect(frames[3]).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 5, thoughtsTokenCount: 2, totalTokenCount: 16 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 's1',
    });
  });

  it('re-encodes a recorded Gemini stream after conversion with the same text and final usage', () => {
    const transform = geminiAdapter.chatConverter!.createStreamTransform('gemini-2.5-flash');
    const encoder = geminiFormat.createStreamEncoder('gemini-2.5-flash');
    let text = '';
    let usage = null;
    for (const event of splitSseEvents(readFixture('gemini', 'stream-text.chunks.txt'))) {
      const converted = transform.onEvent(event);
      usage = converted.usage ?? usage;
      for (const chunk of converted.chunks) text += encoder.onChunk(chunk);
    }
    for (const chunk of transform.finish().chunks) text += encoder.onChunk(chunk);
    text += encoder.finish(usage!);
    const frames = framesOf(text);
    const parts = frames.flatMap((frame) => frame.candidates[0].content.parts);
    expect(
      parts
        .filter((part: any) => part.thought)
        .map((part: any) => part.text)
        .join(''),
    ).toBe('Thinking about leaves.');
    expect(
      parts
        .filter((part: any) => !part.thought)
        .map((part: any) => part.text)
        .join(''),
    ).toBe('Crisp leaves drift and fall.');
    expect(frames.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(frames.at(-1).usageMetadata).toEqual({
      promptTokenCount: 30,
      candidatesTokenCount: 19,
      totalTokenCount: 49,
      cachedContentTokenCount: 16,
    });
  });

  it('writes Google error bodies and the model list shape', () => {
    expect(geminiFormat.errorBody(429, 'quota exceeded', null)).toEqual({
      error: { code: 429, message: 'quota exceeded', status: 'RESOURCE_EXHAUSTED' },
    });
    expect(geminiFormat.errorBody(400, 'bad', 'INVALID_ARGUMENT')).toEqual({
      error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' },
    });
    expect(geminiFormat.errorBody(503, 'no channel', 'model_not_found')).toEqual({
      error: { code: 503, message: 'no channel', status: 'UNAVAILABLE' },
    });
    expect(listGeminiModels(['gemini-2.5-flash', 'models/gemini-embedding-001', 'gemini-2.5-flash', ''])).toEqual({
      models: [
        {
          name: 'models/gemini-2.5-flash',
          displayName: 'gemini-2.5-flash',
          description: '',
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
        {
          name: 'models/gemini-embedding-001',
          displayName: 'gemini-embedding-001',
          description: '',
          supportedGenerationMethods: ['embedContent', 'batchEmbedContents'],
        },
      ],
    });
  });
});
