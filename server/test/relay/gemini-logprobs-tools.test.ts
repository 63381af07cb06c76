import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockLogprob, mockTokens, startMockModels, type MockModels } from '../helpers/mock-models.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

const tools: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'Weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'time',
      description: 'Time in a city',
      parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
    },
  },
];

/**
 * What Gemini channels used to refuse or ignore, through the official SDKs: OpenAI log probabilities
 * (responseLogprobs both ways) and `parallel_tool_calls: false`, which Gemini has no switch for.
 * Each case checks what the client got, what the upstream received and what was billed.
 */
describe('Gemini channels: logprobs and one tool call', () => {
  let server: TestServer;
  let models: MockModels;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let geminiChannel: number;
  let openAiChannel: number;

  beforeAll(async () => {
    server = await startTestServer();
    models = await startMockModels();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gemini-lp': 1, 'gpt-lp': 1 }));
    caller = await createSdkCaller(server.ctx);
    geminiChannel = await createRelayChannel(server.ctx, { type: 24, key: 'AIza-lp', baseURL: models.url, models: ['gemini-lp'] });
    openAiChannel = await createRelayChannel(server.ctx, { type: 1, key: 'sk-lp', baseURL: models.url, models: ['gpt-lp'] });
  });
  afterAll(async () => {
    await server?.stop();
    await models?.close();
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const lastSent = () => models.requests.at(-1)!.body;
  /** The newest log row on the channel carries the usage the upstream reported for its last answer. */
  async function expectBilledAsUpstream(channelId: number) {
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect({ prompt: state.logs[0]!.prompt_tokens, completion: state.logs[0]!.completion_tokens }).toEqual(models.usages.at(-1));
  }
  const expectedEntries = (top: number) =>
    mockTokens(models.text).map((token, step) => ({
      token,
      logprob: mockLogprob(step),
      bytes: [...Buffer.from(token)],
      top_logprobs: Array.from({ length: top }, (_, rank) => {
        const alternative = rank === 0 ? token : `${token}~${rank}`;
        return { token: alternative, logprob: mockLogprob(step, rank), bytes: [...Buffer.from(alternative)] };
      }),
    }));

  it('openai logprobs + top_logprobs: responseLogprobs and logprobs upstream, OpenAI logprobs back, billed as reported', async () => {
    const completion = await openai().chat.completions.create({
      model: 'gemini-lp',
      messages: [{ role: 'user', content: 'What is the answer?' }],
      logprobs: true,
      top_logprobs: 2,
    });
    expect(lastSent().generationConfig).toMatchObject({ responseLogprobs: true, logprobs: 2 });
    expect(completion.choices[0]!.message.content).toBe(models.text);
    expect(completion.choices[0]!.logprobs).toEqual({ content: expectedEntries(2), refusal: null });
    await expectBilledAsUpstream(geminiChannel);
  });

  it("streamed: each chunk carries its tokens' log probabilities, and they spell the text", async () => {
    const stream = await openai().chat.completions.create({
      model: 'gemini-lp',
      messages: [{ role: 'user', content: 'What is the answer?' }],
      logprobs: true,
      top_logprobs: 1,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const entries: OpenAI.Chat.Completions.ChatCompletionTokenLogprob[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? '';
      entries.push(...(choice?.logprobs?.content ?? []));
    }
    expect(lastSent().generationConfig).toMatchObject({ responseLogprobs: true, logprobs: 1 });
    expect(text).toBe(models.text);
    expect(entries).toEqual(expectedEntries(1));
    await expectBilledAsUpstream(geminiChannel);
  });

  it('logprobs alone asks for the chosen tokens only; a bad top_logprobs is a 400 and nothing is sent or billed', async () => {
    const plain = await openai().chat.completions.create({
      model: 'gemini-lp',
      messages: [{ role: 'user', content: 'What is the answer?' }],
      logprobs: true,
    });
    expect(lastSent().generationConfig.responseLogprobs).toBe(true);
    expect(lastSent().generationConfig.logprobs).toBeUndefined();
    expect(plain.choices[0]!.logprobs!.content!.map((entry) => entry.token).join('')).toBe(models.text);

    const sentBefore = models.requests.length;
    const logsBefore = (await billedState(server.ctx, { ...caller, channelId: geminiChannel })).logs.length;
    for (const bad of [
      { logprobs: true, top_logprobs: 21 },
      { logprobs: true, top_logprobs: 1.5 },
      { logprobs: true, top_logprobs: '2' },
      { top_logprobs: 3 },
    ]) {
      const error = await openai()
        .chat.completions.create({ model: 'gemini-lp', messages: [{ role: 'user', content: 'x' }], ...(bad as object) })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/top_logprobs/);
    }
    expect(models.requests.length).toBe(sentBefore);
    expect((await billedState(server.ctx, { ...caller, channelId: geminiChannel })).logs.length).toBe(logsBefore);
  });

  it('@google/genai responseLogprobs on an OpenAI channel: logprobs upstream, logprobsResult back, stream and not', async () => {
    const genai = new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } });
    const config = { responseLogprobs: true, logprobs: 2 };
    const answer = await genai.models.generateContent({ model: 'gpt-lp', contents: 'What is the answer?', config });
    expect(lastSent()).toMatchObject({ logprobs: true, top_logprobs: 2 });
    const tokens = mockTokens(models.text);
    const result = answer.candidates![0]!.logprobsResult!;
    expect(result.chosenCandidates!.map((candidate) => candidate.token)).toEqual(tokens);
    expect(result.chosenCandidates!.map((candidate) => candidate.logProbability)).toEqual(tokens.map((_, step) => mockLogprob(step)));
    expect(result.topCandidates![1]!.candidates!.map((candidate) => candidate.token)).toEqual([tokens[1], `${tokens[1]}~1`]);
    await expectBilledAsUpstream(openAiChannel);

    const chosen: string[] = [];
    for await (const chunk of await genai.models.generateContentStream({ model: 'gpt-lp', contents: 'What is the answer?', config })) {
      chosen.push(...(chunk.candidates?.[0]?.logprobsResult?.chosenCandidates ?? []).map((candidate) => candidate.token!));
    }
    expect(chosen).toEqual(tokens);
    await expectBilledAsUpstream(openAiChannel);
  });

  it("parallel_tool_calls: false gets the first of Gemini's calls, stream and not; the bill is the upstream's", async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Use every tool for Paris' }];
    const both = await openai().chat.completions.create({ model: 'gemini-lp', messages, tools });
    expect(both.choices[0]!.message.tool_calls!.map((call) => (call as { function: { name: string } }).function.name)).toEqual([
      'weather',
      'time',
    ]);

    const one = await openai().chat.completions.create({ model: 'gemini-lp', messages, tools, parallel_tool_calls: false });
    expect(one.choices[0]!.message.tool_calls!.map((call) => (call as { function: { name: string } }).function.name)).toEqual(['weather']);
    expect(one.choices[0]!.finish_reason).toBe('tool_calls');
    expect(lastSent().contents).toBeDefined();
    await expectBilledAsUpstream(geminiChannel);

    const stream = await openai().chat.completions.create({
      model: 'gemini-lp',
      messages,
      tools,
      parallel_tool_calls: false,
      stream: true,
    });
    const names: string[] = [];
    const indexes = new Set<number>();
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        indexes.add(call.index);
        if (call.function?.name) names.push(call.function.name);
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(names).toEqual(['weather']);
    expect([...indexes]).toEqual([0]);
    expect(finish).toBe('tool_calls');
    await expectBilledAsUpstream(geminiChannel);
  });

  it("an Anthropic client's disable_parallel_tool_use on a Gemini channel gets one tool_use block", async () => {
    const anthropic = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'gemini-lp',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Use every tool for Paris' }],
      tools: tools.map((tool) => ({
        name: tool.function.name,
        description: tool.function.description,
        input_schema: tool.function.parameters as Anthropic.Tool.InputSchema,
      })),
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    expect(message.content.filter((block) => block.type === 'tool_use').map((block) => (block as Anthropic.ToolUseBlock).name)).toEqual([
      'weather',
    ]);
    expect(message.stop_reason).toBe('tool_use');
    await expectBilledAsUpstream(geminiChannel);
  });

  it('Claude channels still refuse logprobs with a clear 400', async () => {
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gemini-lp': 1, 'gpt-lp': 1, 'claude-lp': 1 }));
    await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant-lp', baseURL: models.url, models: ['claude-lp'] });
    const error = await openai()
      .chat.completions.create({ model: 'claude-lp', messages: [{ role: 'user', content: 'x' }], logprobs: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/logprobs/);
  });
});
