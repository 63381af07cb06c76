import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { GoogleGenAI, type Content } from '@google/genai';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, stepCountIs, streamText, tool as aiTool, type LanguageModel } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startMockClaude, type MockClaude } from '../helpers/mock-claude.js';
import { startMockModels, type MockModels } from '../helpers/mock-models.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

const answer = 'The answer is 42.';
const weatherSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;
/** What every tool journey's tool gets called with: the upstream fills the schema (mock-claude's instanceOf). */
const calledWith = { city: 'Ada' };

/** One client library's three journeys; `tool` runs the tool loop and returns the final text. */
interface Client {
  name: string;
  text(model: string): Promise<string>;
  stream(model: string): Promise<string>;
  tool(model: string, onCall: (args: unknown) => string): Promise<string>;
}

/**
 * Every client people use × every channel kind: plain chat, a stream and a tool loop, each through
 * ModelGate to a local upstream speaking the channel's wire. Each case checks what the client got,
 * what the upstream received and what was billed (the upstream's own usage, to the token).
 */
describe('client libraries × channel kinds', () => {
  let server: TestServer;
  let models: MockModels;
  let claude: MockClaude;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channelOf: Record<string, number> = {};

  beforeAll(async () => {
    setTracingDisabled(true);
    // The AI SDK warns about unknown model names (their output limits): noise here.
    (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
    server = await startTestServer();
    models = await startMockModels();
    claude = await startMockClaude();
    claude.textAnswer = answer;
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-matrix': 1, 'claude-matrix': 1, 'gemini-matrix': 1 }));
    caller = await createSdkCaller(server.ctx);
    channelOf['gpt-matrix'] = await createRelayChannel(server.ctx, {
      type: 1,
      key: 'sk-matrix',
      baseURL: models.url,
      models: ['gpt-matrix'],
    });
    channelOf['claude-matrix'] = await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant-matrix',
      baseURL: claude.url,
      models: ['claude-matrix'],
    });
    channelOf['gemini-matrix'] = await createRelayChannel(server.ctx, {
      type: 24,
      key: 'AIza-matrix',
      baseURL: models.url,
      models: ['gemini-matrix'],
    });
  });
  afterAll(async () => {
    await server?.stop();
    await models?.close();
    await claude?.close();
  });

  const upstreamOf = (model: string) => (model === 'claude-matrix' ? claude : models);
  const v1 = () => `${server.url}/v1`;

  const aiSdk = (name: string, modelOf: (model: string) => LanguageModel): Client => ({
    name,
    text: async (model) => (await generateText({ model: modelOf(model), prompt: 'What is the answer?', maxRetries: 0 })).text,
    async stream(model) {
      const result = streamText({ model: modelOf(model), prompt: 'What is the answer?', maxRetries: 0 });
      let text = '';
      for await (const piece of result.textStream) text += piece;
      return text;
    },
    async tool(model, onCall) {
      const result = await generateText({
        model: modelOf(model),
        prompt: 'Weather?',
        maxRetries: 0,
        stopWhen: stepCountIs(3),
        tools: {
          weather: aiTool({
            description: 'The weather in a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async (input) => onCall(input),
          }),
        },
      });
      return result.text;
    },
  });

  const langChain = (name: string, chatOf: (model: string) => ChatOpenAI | ChatAnthropic): Client => ({
    name,
    text: async (model) => (await chatOf(model).invoke('What is the answer?')).text,
    async stream(model) {
      let text = '';
      for await (const chunk of await chatOf(model).stream('What is the answer?')) text += chunk.text;
      return text;
    },
    async tool(model, onCall) {
      const bound = chatOf(model).bindTools([
        { type: 'function', function: { name: 'weather', description: 'The weather in a city', parameters: weatherSchema } },
      ]);
      const history: BaseMessage[] = [new HumanMessage('Weather?')];
      const first = (await bound.invoke(history)) as AIMessage;
      const call = first.tool_calls![0]!;
      history.push(first, new ToolMessage({ content: onCall(call.args), tool_call_id: call.id! }));
      return (await bound.invoke(history)).text;
    },
  });

  const agents = (name: string, useResponses: boolean): Client => {
    const runner = () =>
      new Runner({ modelProvider: new OpenAIProvider({ apiKey: caller.apiKey, baseURL: v1(), useResponses }), tracingDisabled: true });
    return {
      name,
      text: async (model) =>
        String((await runner().run(new Agent({ name: 'a', instructions: 'Answer.', model }), 'What is the answer?')).finalOutput),
      async stream(model) {
        const result = await runner().run(new Agent({ name: 'a', instructions: 'Answer.', model }), 'What is the answer?', {
          stream: true,
        });
        let text = '';
        for await (const piece of result.toTextStream()) text += piece;
        await result.completed;
        return text;
      },
      async tool(model, onCall) {
        const weather = agentTool({
          name: 'weather',
          description: 'The weather in a city',
          parameters: z.object({ city: z.string() }),
          execute: async (input) => onCall(input),
        });
        return String(
          (await runner().run(new Agent({ name: 'a', instructions: 'Answer.', model, tools: [weather] }), 'Weather?')).finalOutput,
        );
      },
    };
  };

  const clients: Client[] = [
    {
      name: 'openai',
      text: async (model) =>
        (
          await new OpenAI({ apiKey: caller.apiKey, baseURL: v1(), maxRetries: 0 }).chat.completions.create({
            model,
            messages: [{ role: 'user', content: 'What is the answer?' }],
          })
        ).choices[0]!.message.content!,
      async stream(model) {
        let text = '';
        for await (const chunk of await new OpenAI({ apiKey: caller.apiKey, baseURL: v1(), maxRetries: 0 }).chat.completions.create({
          model,
          stream: true,
          messages: [{ role: 'user', content: 'What is the answer?' }],
        }))
          text += chunk.choices[0]?.delta?.content ?? '';
        return text;
      },
      async tool(model, onCall) {
        const client = new OpenAI({ apiKey: caller.apiKey, baseURL: v1(), maxRetries: 0 });
        const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
          { type: 'function', function: { name: 'weather', parameters: weatherSchema } },
        ];
        const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather?' }];
        const first = await client.chat.completions.create({ model, messages, tools });
        const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
        messages.push(first.choices[0]!.message, {
          role: 'tool',
          tool_call_id: call.id,
          content: onCall(JSON.parse(call.function.arguments)),
        });
        return (await client.chat.completions.create({ model, messages, tools })).choices[0]!.message.content!;
      },
    },
    {
      name: '@anthropic-ai/sdk',
      async text(model) {
        const message = await new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 }).messages.create({
          model,
          max_tokens: 256,
          messages: [{ role: 'user', content: 'What is the answer?' }],
        });
        return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      },
      async stream(model) {
        const stream = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 }).messages.stream({
          model,
          max_tokens: 256,
          messages: [{ role: 'user', content: 'What is the answer?' }],
        });
        const types: string[] = [];
        let text = '';
        for await (const event of stream) {
          types.push(event.type);
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
        }
        // The full Anthropic event sequence, whatever the channel.
        expect(types[0]).toBe('message_start');
        expect(types).toContain('content_block_start');
        expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
        return text;
      },
      async tool(model, onCall) {
        const client = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
        const tools: Anthropic.Tool[] = [
          { name: 'weather', description: 'The weather in a city', input_schema: weatherSchema as unknown as Anthropic.Tool.InputSchema },
        ];
        const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather?' }];
        const first = await client.messages.create({ model, max_tokens: 256, messages, tools });
        expect(first.stop_reason).toBe('tool_use');
        const use = first.content.find((block) => block.type === 'tool_use')!;
        messages.push(
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: onCall(use.input) }] },
        );
        const final = await client.messages.create({ model, max_tokens: 256, messages, tools });
        return final.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      },
    },
    {
      name: '@google/genai',
      text: async (model) =>
        (
          await new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } }).models.generateContent({
            model,
            contents: 'What is the answer?',
          })
        ).text!,
      async stream(model) {
        let text = '';
        let last: unknown = null;
        for await (const chunk of await new GoogleGenAI({
          apiKey: caller.apiKey,
          httpOptions: { baseUrl: server.url },
        }).models.generateContentStream({ model, contents: 'What is the answer?' })) {
          text += chunk.text ?? '';
          last = chunk;
        }
        expect((last as { usageMetadata?: { totalTokenCount?: number } }).usageMetadata?.totalTokenCount).toBeGreaterThan(0);
        return text;
      },
      async tool(model, onCall) {
        const ai = new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } });
        const config = {
          tools: [
            { functionDeclarations: [{ name: 'weather', description: 'The weather in a city', parametersJsonSchema: weatherSchema }] },
          ],
        };
        const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather?' }] }];
        const first = await ai.models.generateContent({ model, contents, config });
        const call = first.functionCalls![0]!;
        contents.push(first.candidates![0]!.content!, {
          role: 'user',
          parts: [{ functionResponse: { id: call.id, name: call.name!, response: { output: onCall(call.args) } } }],
        });
        return (await ai.models.generateContent({ model, contents, config })).text!;
      },
    },
    aiSdk('ai + @ai-sdk/openai (chat)', (model) => createOpenAI({ apiKey: caller.apiKey, baseURL: v1() }).chat(model)),
    aiSdk('ai + @ai-sdk/openai (responses)', (model) => createOpenAI({ apiKey: caller.apiKey, baseURL: v1() }).responses(model)),
    aiSdk('ai + @ai-sdk/anthropic', (model) => createAnthropic({ apiKey: caller.apiKey, baseURL: v1() })(model)),
    aiSdk('ai + @ai-sdk/google', (model) => createGoogleGenerativeAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1beta` })(model)),
    aiSdk('ai + @ai-sdk/openai-compatible', (model) =>
      createOpenAICompatible({ name: 'modelgate', apiKey: caller.apiKey, baseURL: v1(), includeUsage: true })(model),
    ),
    langChain(
      '@langchain/openai',
      (model) => new ChatOpenAI({ model, apiKey: caller.apiKey, configuration: { baseURL: v1() }, maxRetries: 0, streamUsage: true }),
    ),
    langChain(
      '@langchain/anthropic',
      (model) => new ChatAnthropic({ model, apiKey: caller.apiKey, anthropicApiUrl: server.url, maxRetries: 0, maxTokens: 256 }),
    ),
    agents('@openai/agents (responses)', true),
    agents('@openai/agents (chat completions)', false),
  ];

  /** The last answer was billed exactly as the upstream reported it. */
  async function expectBilledAsUpstream(model: string) {
    const state = await billedState(server.ctx, { ...caller, channelId: channelOf[model]! });
    const reported = upstreamOf(model).usages.at(-1)!;
    expect({ prompt: state.logs[0]!.prompt_tokens, completion: state.logs[0]!.completion_tokens }).toEqual(reported);
  }
  const lastBody = (model: string) => upstreamOf(model).requests.at(-1)!.body;

  describe.each(clients.map((client) => [client.name, client] as const))('%s', (_name, client) => {
    it.each(['gpt-matrix', 'claude-matrix', 'gemini-matrix'])('plain chat on %s', async (model) => {
      expect(await client.text(model)).toBe(answer);
      expect(JSON.stringify(lastBody(model))).toContain('What is the answer?');
      await expectBilledAsUpstream(model);
    });

    it.each(['gpt-matrix', 'claude-matrix', 'gemini-matrix'])('a stream on %s', async (model) => {
      expect(await client.stream(model)).toBe(answer);
      const body = lastBody(model);
      if (model !== 'gemini-matrix') expect(body.stream).toBe(true);
      else expect(upstreamOf(model).requests.at(-1)!.path).toContain(':streamGenerateContent');
      await expectBilledAsUpstream(model);
    });

    it.each(['gpt-matrix', 'claude-matrix', 'gemini-matrix'])('a tool loop on %s', async (model) => {
      const calls: unknown[] = [];
      const before = upstreamOf(model).requests.length;
      const final = await client.tool(model, (args) => {
        calls.push(args);
        return 'sunny';
      });
      expect(calls).toEqual([calledWith]);
      expect(final).toBe(answer);
      const sent = upstreamOf(model).requests.slice(before);
      expect(sent.length).toBe(2);
      // The tool reached the upstream in its own wire, and the result came back in the second turn.
      const toolNames =
        model === 'gpt-matrix'
          ? sent[0]!.body.tools.map((t: any) => t.function?.name ?? t.name)
          : model === 'claude-matrix'
            ? sent[0]!.body.tools.map((t: any) => t.name)
            : sent[0]!.body.tools[0].functionDeclarations.map((d: any) => d.name);
      expect(toolNames).toEqual(['weather']);
      expect(JSON.stringify(sent[1]!.body)).toContain('sunny');
      await expectBilledAsUpstream(model);
    });
  });
});
