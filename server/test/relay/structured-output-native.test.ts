import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, Type } from '@google/genai';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultStructuredOutputModels } from '../../src/options/claude-structured-output.js';
import { startMockClaude, type MockClaude } from '../helpers/mock-claude.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

const person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()), role: z.enum(['admin', 'user']) });
const expected = { name: 'Ada', age: 42, tags: ['Ada'], role: 'admin' };
const supported = 'claude-sonnet-4-5-20250929';
const models = [supported, 'claude-haiku-4-5-20251001', 'claude-3-5-haiku-20241022', 'claude-sonnet-4-20250514', 'claude-so'];

/**
 * Structured output on Claude models that take the schema themselves (claude.structured_output_models):
 * `output_config.format` is sent instead of a forced tool and the model's JSON text comes back as the
 * answer. The mock Claude answers the field only for the models Anthropic lists and only for a schema
 * in Anthropic's subset (a 400 otherwise), so each case proves what was sent.
 */
describe('native structured output on Claude channels', () => {
  let server: TestServer;
  let claude: MockClaude;
  let openAiUpstream: MockOpenAi;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;

  beforeAll(async () => {
    server = await startTestServer();
    [claude, openAiUpstream] = await Promise.all([startMockClaude(), startMockOpenAi()]);
    await setOption(server.ctx, 'ModelRatio', JSON.stringify(Object.fromEntries([...models, 'gpt-so'].map((model) => [model, 1]))));
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant-native', baseURL: claude.url, models });
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([claude?.close(), openAiUpstream?.close()]);
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const lastSent = () => claude.requests.at(-1)!.body;
  /** The newest log row's tokens are what the upstream reported for its last answer. */
  async function expectBilledAsUpstream() {
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect({ prompt: state.logs[0]!.prompt_tokens, completion: state.logs[0]!.completion_tokens }).toEqual(claude.usages.at(-1));
  }

  it('openai chat.completions.parse on a supported model: output_config.format sent, no tool, the parsed object back, billed as reported', async () => {
    const completion = await openai().chat.completions.parse({
      model: supported,
      messages: [{ role: 'user', content: 'Describe Ada' }],
      response_format: zodResponseFormat(person, 'person'),
    });
    const choice = completion.choices[0]!;
    expect(choice.message.parsed).toEqual(expected);
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message.tool_calls ?? []).toEqual([]);
    const sent = lastSent();
    expect(sent.output_config.format).toMatchObject({
      type: 'json_schema',
      schema: { type: 'object', additionalProperties: false, required: ['name', 'age', 'tags', 'role'] },
    });
    // zod's integer bounds are refused by Anthropic's subset: left out (they only say "integer").
    expect(sent.output_config.format.schema.properties.age).toEqual({ type: 'integer' });
    expect(sent.output_config.format.schema.$schema).toBeUndefined();
    expect(sent.tools).toBeUndefined();
    expect(sent.tool_choice).toBeUndefined();
    expect(sent.response_format).toBeUndefined();
    await expectBilledAsUpstream();
  });

  it("streamed: the model's text deltas are the JSON, finish_reason stop, billed as reported", async () => {
    const stream = await openai().chat.completions.create({
      model: 'claude-haiku-4-5-20251001',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Describe Ada' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: z.toJSONSchema(person) as Record<string, unknown> } },
    });
    let text = '';
    let contentChunks = 0;
    const finishes: string[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta?.content) {
        text += choice.delta.content;
        contentChunks += 1;
      }
      expect(choice?.delta?.tool_calls).toBeUndefined();
      if (choice?.finish_reason) finishes.push(choice.finish_reason);
    }
    expect(JSON.parse(text)).toEqual(expected);
    expect(contentChunks).toBeGreaterThan(2);
    expect(finishes).toEqual(['stop']);
    expect(lastSent()).toMatchObject({ stream: true, output_config: { format: { type: 'json_schema' } } });
    expect(lastSent().tools).toBeUndefined();
    await expectBilledAsUpstream();
  });

  it('with thinking on, output_config is sent alongside it: the reasoning stays reasoning, the content is the JSON', async () => {
    const completion = await openai().chat.completions.create({
      model: supported,
      reasoning_effort: 'low',
      max_tokens: 4000,
      messages: [{ role: 'user', content: 'Describe Ada' }],
      response_format: zodResponseFormat(person, 'person'),
    });
    const message = completion.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string };
    expect(JSON.parse(message.content!)).toEqual(expected);
    expect(message.reasoning_content).toBe('The schema asks for a person.');
    const sent = lastSent();
    expect(sent.thinking).toMatchObject({ type: 'enabled' });
    expect(sent.output_config.format.type).toBe('json_schema');
    expect(sent.tools).toBeUndefined();
    expect(JSON.stringify(sent.system ?? '')).not.toContain('Answer only by calling');
  });

  it('older models (Claude 3.5 Haiku, Sonnet 4) still get the forced tool, which the upstream would refuse natively', async () => {
    for (const model of ['claude-3-5-haiku-20241022', 'claude-sonnet-4-20250514']) {
      const completion = await openai().chat.completions.parse({
        model,
        messages: [{ role: 'user', content: 'Describe Ada' }],
        response_format: zodResponseFormat(person, 'person'),
      });
      expect(completion.choices[0]!.message.parsed, model).toEqual(expected);
      expect(lastSent().output_config, model).toBeUndefined();
      expect(lastSent().tool_choice, model).toEqual({ type: 'tool', name: 'person', disable_parallel_tool_use: true });
    }
  });

  it('json_object, and a schema native cannot express (a map), keep the forced tool on a supported model', async () => {
    const loose = await openai().chat.completions.create({
      model: supported,
      messages: [{ role: 'user', content: 'Give me JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(loose.choices[0]!.message.content!)).toEqual({});
    expect(lastSent().output_config).toBeUndefined();
    const scores = {
      type: 'object',
      properties: { scores: { type: 'object', additionalProperties: { type: 'number' } } },
      required: ['scores'],
    };
    const mapped = await openai().chat.completions.create({
      model: supported,
      messages: [{ role: 'user', content: 'Score' }],
      response_format: { type: 'json_schema', json_schema: { name: 'scores', schema: scores } },
    });
    expect(JSON.parse(mapped.choices[0]!.message.content!)).toEqual({ scores: {} });
    expect(lastSent().output_config).toBeUndefined();
    expect(lastSent().tools[0]).toMatchObject({ name: 'scores', input_schema: scores });
  });

  it('a schema without additionalProperties (the Responses API, strict off) is closed for Claude; malformed ones are still the 400', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, spot: { type: 'object', properties: { x: { type: 'number' } } } },
      required: ['city', 'spot'],
    };
    const response = await openai().responses.create({
      model: supported,
      input: 'Where?',
      text: { format: { type: 'json_schema', name: 'place', schema, strict: false } },
    });
    expect(JSON.parse(response.output_text)).toEqual({ city: 'Ada', spot: { x: 4.5 } });
    expect(lastSent().output_config.format.schema).toMatchObject({
      additionalProperties: false,
      properties: { spot: { additionalProperties: false } },
    });
    const before = claude.requests.length;
    const bad = await openai()
      .chat.completions.create({
        model: supported,
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'list', schema: { type: 'array', items: { type: 'string' } } } },
      })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_response_format');
    expect(claude.requests.length).toBe(before);
  });

  it("Gemini's responseSchema (@google/genai) on a supported model: output_config with the schema closed, JSON text back, stream and not", async () => {
    const ai = new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } });
    const responseSchema = {
      type: Type.OBJECT,
      properties: { city: { type: Type.STRING }, population: { type: Type.INTEGER } },
      required: ['city', 'population'],
    };
    const answer = await ai.models.generateContent({
      model: supported,
      contents: 'Biggest city?',
      config: { responseMimeType: 'application/json', responseSchema },
    });
    expect(JSON.parse(answer.text!)).toEqual({ city: 'Ada', population: 42 });
    const sent = lastSent();
    expect(sent.output_config.format.schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { city: { type: 'string' } },
    });
    expect(sent.tools).toBeUndefined();
    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({
      model: supported,
      contents: 'Biggest city?',
      config: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    }))
      streamed += chunk.text ?? '';
    expect(JSON.parse(streamed)).toEqual({ city: 'Ada' });
    expect(lastSent().output_config.format.schema.additionalProperties).toBe(false);
  });

  it('claude.structured_output_models: a model added goes native, an empty list turns native off, a stored bad value reads as the default', async () => {
    const ask = (model: string) =>
      openai().chat.completions.parse({
        model,
        messages: [{ role: 'user', content: 'Describe Ada' }],
        response_format: zodResponseFormat(person, 'person'),
      });
    try {
      claude.nativeModels = [...claude.nativeModels, 'claude-so'];
      await setOption(server.ctx, 'claude.structured_output_models', JSON.stringify([...defaultStructuredOutputModels, 'claude-so']));
      expect((await ask('claude-so')).choices[0]!.message.parsed).toEqual(expected);
      expect(lastSent().output_config.format.type).toBe('json_schema');
      await setOption(server.ctx, 'claude.structured_output_models', '[]');
      expect((await ask(supported)).choices[0]!.message.parsed).toEqual(expected);
      expect(lastSent().output_config).toBeUndefined();
      expect(lastSent().tool_choice).toMatchObject({ type: 'tool', name: 'person' });
      // A value the check refuses, stored by hand: the default list, never a crash.
      await server.ctx.storage.db
        .updateTable('options')
        .set({ value: '[1, {"x": 2}]' })
        .where('key', '=', 'claude.structured_output_models')
        .execute();
      await server.ctx.options.load();
      expect((await ask(supported)).choices[0]!.message.parsed).toEqual(expected);
      expect(lastSent().output_config.format.type).toBe('json_schema');
      expect((await ask('claude-so')).choices[0]!.message.parsed).toEqual(expected);
      expect(lastSent().output_config).toBeUndefined();
    } finally {
      await setOption(server.ctx, 'claude.structured_output_models', JSON.stringify(defaultStructuredOutputModels));
    }
  });

  it('Anthropic SDK output_config: passed through on a Claude channel, the canonical response_format on an OpenAI channel', async () => {
    const client = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const native = (await client.messages.create({
      model: supported,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Where?' }],
      output_config: { format: { type: 'json_schema', schema } },
    } as any)) as Anthropic.Message;
    expect(JSON.parse((native.content[0] as Anthropic.TextBlock).text)).toEqual({ city: 'Ada' });
    expect(lastSent().output_config).toEqual({ format: { type: 'json_schema', schema } });

    await createRelayChannel(server.ctx, { type: 1, key: 'sk-openai-so', baseURL: openAiUpstream.url, models: ['gpt-so'] });
    const converted = (await client.messages.create({
      model: 'gpt-so',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Where?' }],
      output_config: { format: { type: 'json_schema', schema } },
    } as any)) as Anthropic.Message;
    expect(converted.content[0]!.type).toBe('text');
    expect(openAiUpstream.requests.at(-1)!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema },
    });
    const refused = await client.messages
      .create({
        model: 'gpt-so',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'Where?' }],
        output_config: { format: { type: 'xml' } },
      } as any)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(((refused as InstanceType<typeof Anthropic.BadRequestError>).error as any).error.message).toContain('output_config.format.type');
  });
});
