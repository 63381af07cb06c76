import { GoogleGenAI, Type } from '@google/genai';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { generateObject, streamObject } from 'ai';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instanceOf, startMockClaude, type MockClaude } from '../helpers/mock-claude.js';
import { startMockModels, type MockModels } from '../helpers/mock-models.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

const person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()), role: z.enum(['admin', 'user']) });
const expected = { name: 'Ada', age: 42, tags: ['Ada'], role: 'admin' };

/**
 * Structured output on Claude channels: every client's way of asking for JSON (chat response_format,
 * Responses text.format, Gemini responseSchema) reaches Claude as a tool it must call, and comes back
 * as the JSON text, stream and non-stream; each case checks what the client got, what the upstream
 * received and what was billed. `claude-so` is no model of claude.structured_output_models: models that
 * take the schema themselves (output_config.format) are structured-output-native.test.ts's.
 */
describe('structured output on Claude channels', () => {
  let server: TestServer;
  let claude: MockClaude;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;

  beforeAll(async () => {
    setTracingDisabled(true);
    // The AI SDK warns about unknown model names (their output limits): noise here.
    (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
    server = await startTestServer();
    claude = await startMockClaude();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'claude-so': 1 }));
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant-so', baseURL: claude.url, models: ['claude-so'] });
  });
  afterAll(async () => {
    await server?.stop();
    await claude?.close();
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const lastSent = () => claude.requests.at(-1)!.body;
  /** The newest log row's tokens match what the upstream reported for its answer. */
  async function expectBilledAsUpstream(outputTokens: number) {
    const state = await billedState(server.ctx, { ...caller, channelId });
    const sent = lastSent();
    expect(state.logs[0]!.prompt_tokens).toBe(10 + Math.ceil(JSON.stringify(sent.messages).length / 4));
    expect(state.logs[0]!.completion_tokens).toBe(outputTokens);
  }

  it('openai chat.completions.parse with a zod response_format: a forced tool upstream, the parsed object back, billed as reported', async () => {
    const completion = await openai().chat.completions.parse({
      model: 'claude-so',
      messages: [{ role: 'user', content: 'Describe Ada' }],
      response_format: zodResponseFormat(person, 'person'),
    });
    const choice = completion.choices[0]!;
    expect(choice.message.parsed).toEqual(expected);
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message.tool_calls ?? []).toEqual([]);
    const sent = lastSent();
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'person', disable_parallel_tool_use: true });
    expect(sent.tools).toHaveLength(1);
    expect(sent.tools[0]).toMatchObject({ name: 'person', input_schema: { type: 'object', required: ['name', 'age', 'tags', 'role'] } });
    expect(sent.response_format).toBeUndefined();
    await expectBilledAsUpstream(Math.ceil(JSON.stringify(expected).length / 4));
  });

  it("streamed: the tool's argument deltas arrive as content deltas that join into the JSON, finish_reason stop", async () => {
    const stream = await openai().chat.completions.create({
      model: 'claude-so',
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
    expect(lastSent().stream).toBe(true);
    await expectBilledAsUpstream(Math.ceil(JSON.stringify(expected).length / 4));
  });

  it('json_object: a free-form object tool, answered as JSON text', async () => {
    const completion = await openai().chat.completions.create({
      model: 'claude-so',
      messages: [{ role: 'user', content: 'Give me JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({});
    expect(lastSent().tools[0]).toMatchObject({ name: 'json_response', input_schema: { type: 'object' } });
  });

  it('with caller tools: the model must call one of them or the JSON tool; a tool call passes on, then the answer is JSON', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      },
    ];
    const format = {
      type: 'json_schema' as const,
      json_schema: { name: 'person', schema: z.toJSONSchema(person) as Record<string, unknown> },
    };
    const first = await openai().chat.completions.create({
      model: 'claude-so',
      messages: [{ role: 'user', content: 'Find Ada' }],
      tools,
      response_format: format,
    });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(first.choices[0]!.message.tool_calls![0]).toMatchObject({ function: { name: 'lookup', arguments: '{"q":"Ada"}' } });
    expect(lastSent().tool_choice).toEqual({ type: 'any' });
    expect(lastSent().tools.map((t: { name: string }) => t.name)).toEqual(['lookup', 'person']);
    const call = first.choices[0]!.message.tool_calls![0]!;
    const second = await openai().chat.completions.create({
      model: 'claude-so',
      tools,
      response_format: format,
      messages: [
        { role: 'user', content: 'Find Ada' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'Ada, 42, admin' },
      ],
    });
    expect(JSON.parse(second.choices[0]!.message.content!)).toEqual(expected);
    expect(second.choices[0]!.finish_reason).toBe('stop');
  });

  it('with thinking on, the choice stays free (Claude forbids forcing a tool then) and a system line asks for the tool', async () => {
    const completion = await openai().chat.completions.create({
      model: 'claude-so',
      reasoning_effort: 'low',
      max_tokens: 4000,
      messages: [{ role: 'user', content: 'Describe Ada' }],
      response_format: zodResponseFormat(person, 'person'),
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual(expected);
    const sent = lastSent();
    expect(sent.thinking).toMatchObject({ type: 'enabled' });
    expect(sent.tool_choice).toMatchObject({ type: 'auto' });
    expect(JSON.stringify(sent.system)).toContain('Answer only by calling the person tool');
  });

  it("a malformed schema is a 400 in the caller's format, nothing sent upstream or billed", async () => {
    const before = claude.requests.length;
    const bad = await openai()
      .chat.completions.create({
        model: 'claude-so',
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'list', schema: { type: 'array', items: { type: 'string' } } } },
      })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_response_format');
    const notObject = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-so', input: 'x', text: { format: { type: 'json_schema', name: 'x', schema: 'nope' } } }),
    });
    expect(notObject.status).toBe(400);
    expect(((await notObject.json()) as any).error.message).toContain('JSON Schema');
    expect(claude.requests.length).toBe(before);
  });

  it('the Responses API (openai.responses.parse with text.format) gets the object as output_text', async () => {
    const response = await openai().responses.parse({
      model: 'claude-so',
      input: 'Describe Ada',
      text: { format: { type: 'json_schema', name: 'person', schema: z.toJSONSchema(person) as Record<string, unknown>, strict: true } },
    });
    expect(response.output_parsed).toEqual(expected);
    expect(JSON.parse(response.output_text)).toEqual(expected);
    expect(lastSent().tool_choice).toMatchObject({ type: 'tool', name: 'person' });
  });

  it("Gemini's responseSchema (@google/genai) on a Claude channel: JSON text, stream and not", async () => {
    const ai = new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } });
    const responseSchema = {
      type: Type.OBJECT,
      properties: { city: { type: Type.STRING }, population: { type: Type.INTEGER } },
      required: ['city', 'population'],
    };
    const answer = await ai.models.generateContent({
      model: 'claude-so',
      contents: 'Biggest city?',
      config: { responseMimeType: 'application/json', responseSchema },
    });
    expect(JSON.parse(answer.text!)).toEqual({ city: 'Ada', population: 42 });
    expect(lastSent().tools[0].input_schema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'integer' } },
    });
    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({
      model: 'claude-so',
      contents: 'Biggest city?',
      config: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    }))
      streamed += chunk.text ?? '';
    expect(JSON.parse(streamed)).toEqual({ city: 'Ada' });
  });

  it('AI SDK generateObject and streamObject, over chat completions and over the Responses API', async () => {
    const provider = createOpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1` });
    const viaChat = await generateObject({ model: provider.chat('claude-so'), schema: person, prompt: 'Describe Ada', maxRetries: 0 });
    expect(viaChat.object).toEqual(expected);
    expect(viaChat.usage.inputTokens).toBe(10 + Math.ceil(JSON.stringify(lastSent().messages).length / 4));
    const viaResponses = await generateObject({
      model: provider.responses('claude-so'),
      schema: person,
      prompt: 'Describe Ada',
      maxRetries: 0,
    });
    expect(viaResponses.object).toEqual(expected);
    const streamed = streamObject({ model: provider.chat('claude-so'), schema: person, prompt: 'Describe Ada', maxRetries: 0 });
    const partials: unknown[] = [];
    for await (const partial of streamed.partialObjectStream) partials.push(partial);
    expect(await streamed.object).toEqual(expected);
    expect(partials.length).toBeGreaterThan(1);
    await expectBilledAsUpstream(Math.ceil(JSON.stringify(expected).length / 4));
  });

  it('LangChain withStructuredOutput (JSON schema method) returns the object', async () => {
    const model = new ChatOpenAI({
      model: 'claude-so',
      apiKey: caller.apiKey,
      configuration: { baseURL: `${server.url}/v1` },
      maxRetries: 0,
    });
    const structured = model.withStructuredOutput(person, { method: 'jsonSchema', name: 'person' });
    expect(await structured.invoke('Describe Ada')).toEqual(expected);
    expect(lastSent().tool_choice).toMatchObject({ type: 'tool', name: 'person' });
  });

  it('an @openai/agents agent with a tool and an outputType: calls the tool, then answers the typed object', async () => {
    const calls: string[] = [];
    const lookup = tool({
      name: 'lookup',
      description: 'Looks a person up',
      parameters: z.object({ q: z.string() }),
      execute: async ({ q }) => {
        calls.push(q);
        return 'Ada, 42, admin';
      },
    });
    const agent = new Agent({
      name: 'profiler',
      instructions: 'Profile the person.',
      model: 'claude-so',
      tools: [lookup],
      outputType: person,
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, useResponses: true }),
      tracingDisabled: true,
    });
    const result = await runner.run(agent, 'Who is Ada?');
    expect(calls).toEqual(['Ada']);
    expect(result.finalOutput).toEqual(expected);
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect(state.logs.length).toBeGreaterThanOrEqual(2);
  });

  it('on a Gemini channel, response_format becomes responseMimeType + responseSchema (openai parse, AI SDK generateObject)', async () => {
    const models: MockModels = await startMockModels();
    try {
      await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'claude-so': 1, 'gemini-so': 1 }));
      const geminiChannel = await createRelayChannel(server.ctx, { type: 24, key: 'AIza-so', baseURL: models.url, models: ['gemini-so'] });
      const parsed = await openai().chat.completions.parse({
        model: 'gemini-so',
        messages: [{ role: 'user', content: 'Describe Ada' }],
        response_format: zodResponseFormat(person, 'person'),
      });
      expect(parsed.choices[0]!.message.parsed).toEqual(expected);
      const config = models.requests.at(-1)!.body.generationConfig;
      expect(config.responseMimeType).toBe('application/json');
      expect(config.responseSchema).toMatchObject({ type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } } });
      expect(models.requests.at(-1)!.body.tools).toBeUndefined();
      const viaAiSdk = await generateObject({
        model: createOpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1` }).chat('gemini-so'),
        schema: person,
        prompt: 'Describe Ada',
        maxRetries: 0,
      });
      expect(viaAiSdk.object).toEqual(expected);
      const state = await billedState(server.ctx, { ...caller, channelId: geminiChannel });
      expect({ prompt: state.logs[0]!.prompt_tokens, completion: state.logs[0]!.completion_tokens }).toEqual(models.usages.at(-1));
    } finally {
      await models.close();
    }
  });

  it('the generator of the mock follows the schema it is given', () => {
    expect(instanceOf(z.toJSONSchema(person) as Record<string, unknown>)).toEqual(expected);
  });
});
