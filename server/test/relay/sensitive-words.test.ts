import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WordMatcher } from '../../src/lib/word-matcher.js';
import { startMockClaude, type MockClaude } from '../helpers/mock-claude.js';
import { startMockModels, type MockModels } from '../helpers/mock-models.js';
import { createRelayChannel, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

describe('the word matcher', () => {
  it('finds every occurrence, overlapping ones included, case-insensitively, in one pass', () => {
    const matcher = new WordMatcher(['he', 'she', 'his', 'hers', '敏感', 'Secret']);
    const found = matcher.matches('Ushers keep SECRETS about 敏感词').map((match) => `${match.word}@${match.start}`);
    expect(found).toEqual(['she@1', 'he@2', 'hers@2', 'Secret@12', '敏感@26']);
    expect(new WordMatcher([]).matches('anything')).toEqual([]);
  });

  it('scales with the text, not the word list: thousands of words', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
    const matcher = new WordMatcher(words);
    const text = `${'lorem ipsum dolor sit amet '.repeat(40)}${words[4321]} end`;
    const found = matcher.matches(text);
    expect(found.map((match) => match.word)).toEqual([words[4321]]);
    expect(found[0]!.start).toBe(text.indexOf(words[4321]!));
  });
});

/** Sensitive words: prompts refused before any upstream call, completions masked or stopped, streams included. */
describe('sensitive words on the relay', () => {
  let server: TestServer;
  let models: MockModels;
  let claude: MockClaude;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let openAiChannel: number;

  beforeAll(async () => {
    server = await startTestServer();
    models = await startMockModels();
    claude = await startMockClaude();
    claude.textAnswer = 'The answer is 42.';
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-guard': 1, 'claude-guard': 1, 'text-embedding-guard': 1 }));
    caller = await createSdkCaller(server.ctx);
    openAiChannel = await createRelayChannel(server.ctx, {
      type: 1,
      key: 'sk-guard',
      baseURL: models.url,
      models: ['gpt-guard', 'text-embedding-guard'],
    });
    await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant-guard', baseURL: claude.url, models: ['claude-guard'] });
  });
  beforeEach(async () => {
    await setOption(server.ctx, 'CheckSensitiveEnabled', 'true');
    await setOption(server.ctx, 'CheckSensitiveOnPromptEnabled', 'true');
    await setOption(server.ctx, 'CheckSensitiveOnCompletionEnabled', 'true');
    await setOption(server.ctx, 'StopOnSensitiveEnabled', 'false');
    await setOption(server.ctx, 'SensitiveWords', 'forbidden\n违禁\nanswer');
  });
  afterAll(async () => {
    await server?.stop();
    await models?.close();
    await claude?.close();
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const sent = () => models.requests.length + claude.requests.length;
  const consumeLogs = async () => {
    await flushRelay(server.ctx);
    return (
      await server.ctx.storage.db.selectFrom('logs').select('id').where('user_id', '=', caller.userId).where('type', '=', 2).execute()
    ).length;
  };

  it("a prompt with a word is refused in the caller's format before any upstream call, and not billed", async () => {
    const before = sent();
    const logs = await consumeLogs();
    const chat = await openai()
      .chat.completions.create({
        model: 'gpt-guard',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'tell me the FORBIDDEN thing' }] }],
      })
      .catch((error: unknown) => error);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('sensitive_words_detected');
    expect((chat as Error).message).toContain('forbidden');
    const embedding = await openai()
      .embeddings.create({ model: 'text-embedding-guard', input: ['fine', '一些违禁内容'] })
      .catch((error: unknown) => error);
    expect(embedding).toBeInstanceOf(OpenAI.BadRequestError);
    const message = await new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 }).messages
      .create({ model: 'claude-guard', max_tokens: 16, messages: [{ role: 'user', content: 'forbidden' }] })
      .catch((error: unknown) => error);
    expect(message).toBeInstanceOf(Anthropic.BadRequestError);
    expect(((message as InstanceType<typeof Anthropic.BadRequestError>).error as any).error.message).toContain('forbidden');
    expect(sent()).toBe(before);
    expect(await consumeLogs()).toBe(logs);
    // With prompt checks off, the same prompt goes through.
    await setOption(server.ctx, 'CheckSensitiveOnPromptEnabled', 'false');
    await setOption(server.ctx, 'CheckSensitiveOnCompletionEnabled', 'false');
    expect(
      (await openai().chat.completions.create({ model: 'gpt-guard', messages: [{ role: 'user', content: 'forbidden' }] })).choices[0]!
        .message.content,
    ).toBe('The answer is 42.');
  });

  it('completions are masked, whole and streamed — a word split across upstream chunks is still caught — and billed as reported', async () => {
    const whole = await openai().chat.completions.create({ model: 'gpt-guard', messages: [{ role: 'user', content: 'hi' }] });
    expect(whole.choices[0]!.message.content).toBe('The **###** is 42.');
    // The mock streams 4-character pieces: "answer" arrives as "answ" + "er i".
    let text = '';
    const finishes: string[] = [];
    for await (const chunk of await openai().chat.completions.create({
      model: 'gpt-guard',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    })) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }
    expect(text).toBe('The **###** is 42.');
    expect(finishes).toEqual(['stop']);
    const state = await billedState(server.ctx, { ...caller, channelId: openAiChannel });
    expect({ prompt: state.logs[0]!.prompt_tokens, completion: state.logs[0]!.completion_tokens }).toEqual(models.usages.at(-1));
    // Converted answers too (an Anthropic client on a Claude channel passes natively, so it is converted when completions are checked).
    const events: any[] = [];
    for await (const event of new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 }).messages.stream({
      model: 'claude-guard',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    }))
      events.push(event);
    expect(
      events
        .filter((event) => event.type === 'content_block_delta')
        .map((event) => event.delta.text)
        .join(''),
    ).toBe('The **###** is 42.');
  });

  it('StopOnSensitiveEnabled: the answer stops before the word with finish_reason content_filter (stop_reason refusal for Anthropic clients)', async () => {
    await setOption(server.ctx, 'StopOnSensitiveEnabled', 'true');
    const whole = await openai().chat.completions.create({ model: 'gpt-guard', messages: [{ role: 'user', content: 'hi' }] });
    expect(whole.choices[0]).toMatchObject({ message: { content: 'The ' }, finish_reason: 'content_filter' });
    let text = '';
    let finish = '';
    for await (const chunk of await openai().chat.completions.create({
      model: 'gpt-guard',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('The ');
    expect(finish).toBe('content_filter');
    const message = await new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 }).messages.create({
      model: 'claude-guard',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.stop_reason).toBe('refusal');
    expect(message.content).toEqual([expect.objectContaining({ text: 'The ' })]);
  });

  it('off by default: nothing is checked, plain OpenAI clients keep the pass-through', async () => {
    await setOption(server.ctx, 'CheckSensitiveEnabled', 'false');
    const whole = await openai().chat.completions.create({ model: 'gpt-guard', messages: [{ role: 'user', content: 'forbidden answer' }] });
    expect(whole.choices[0]!.message.content).toBe('The answer is 42.');
    expect(whole.id).toMatch(/^chatcmpl-models/);
  });
});
