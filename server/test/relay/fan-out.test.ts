import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

/**
 * A Claude upstream whose k-th answer is `Answer k.` (so merged choices can be told apart), stream and
 * not, with Anthropic's usage (input 10 + messages/4, output characters/4). `plan` scripts the next
 * requests: `fail` answers 529 overloaded_error; `break` streams part of its answer, waits until the
 * other answers are done, then drops the connection.
 */
interface FanUpstream {
  url: string;
  requests: any[];
  usages: Array<{ prompt: number; completion: number; complete: boolean }>;
  plan: Array<'ok' | 'fail' | 'break'>;
  close(): Promise<void>;
}

async function startFanUpstream(): Promise<FanUpstream> {
  const state: Omit<FanUpstream, 'url' | 'close'> = { requests: [], usages: [], plan: [] };
  // Answers still streaming normally; a `break` waits for them to end.
  let streaming = 0;
  const idle: Array<() => void> = [];
  const done = () => {
    streaming -= 1;
    if (streaming === 0) idle.splice(0).forEach((resolve) => resolve());
  };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      state.requests.push(body);
      const k = state.requests.length;
      const mode = state.plan.shift() ?? 'ok';
      if (mode === 'fail') {
        res.writeHead(529, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
        return;
      }
      const text = `Answer ${k}.`;
      const usage = {
        prompt: 10 + Math.ceil(JSON.stringify(body.messages).length / 4),
        completion: Math.ceil(text.length / 4),
        complete: mode === 'ok',
      };
      state.usages.push(usage);
      const message = {
        id: `msg_fan${k}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [] as object[],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.prompt, output_tokens: 1 },
      };
      if (body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...message,
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('message_start', { message });
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: text.slice(0, 4) } });
      if (mode === 'break') {
        // Dropped once the other answers have ended, so they complete and this one does not.
        new Promise<void>((resolve) => (streaming === 0 ? resolve() : idle.push(resolve)))
          .then(() => setTimeout(() => res.destroy(), 20))
          .catch(() => undefined);
        return;
      }
      streaming += 1;
      setTimeout(() => {
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: text.slice(4) } });
        event('content_block_stop', { index: 0 });
        event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.completion } });
        event('message_stop', {});
        res.end();
        done();
      }, 10 * k);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/**
 * n > 1 on Claude channels (OpenAI `n`, Gemini `candidateCount`): n upstream calls side by side,
 * their answers merged as choices (each stream choice with its own index), the usage summed and
 * billed; a failed call fails the request and the calls that did not complete are not billed.
 */
describe('n > 1 on Claude channels: a fan-out of calls', () => {
  let server: TestServer;
  let upstream: FanUpstream;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFanUpstream();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'claude-fan': 1 }));
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant-fan', baseURL: upstream.url, models: ['claude-fan'] });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.usages.length = 0;
    upstream.plan.length = 0;
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const billed = () => billedState(server.ctx, { ...caller, channelId });
  const sum = (usages: FanUpstream['usages']) => ({
    prompt: usages.reduce((s, u) => s + u.prompt, 0),
    completion: usages.reduce((s, u) => s + u.completion, 0),
  });
  const texts = () => upstream.requests.map((_, i) => `Answer ${i + 1}.`);

  it('non-stream n: 3 makes three calls without n, and answers three choices with the summed usage, billed', async () => {
    const logsBefore = (await billed()).logs.length;
    const completion = await openai().chat.completions.create({
      model: 'claude-fan',
      n: 3,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Say something' }],
    });
    expect(upstream.requests).toHaveLength(3);
    for (const sent of upstream.requests) {
      expect(sent.n).toBeUndefined();
      expect(sent.max_tokens).toBe(50);
    }
    expect(completion.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    expect(completion.choices.map((choice) => choice.message.content).sort()).toEqual(texts().sort());
    expect(completion.choices.every((choice) => choice.finish_reason === 'stop')).toBe(true);
    const total = sum(upstream.usages);
    expect({ prompt: completion.usage!.prompt_tokens, completion: completion.usage!.completion_tokens }).toEqual(total);
    const state = await billed();
    expect(state.logs).toHaveLength(logsBefore + 1);
    expect({ prompt: state.logs[0]!.prompt_tokens, completion: state.logs[0]!.completion_tokens }).toEqual(total);
  });

  it('streamed: every choice keeps its index, each spells one answer, and the usage chunk is the sum', async () => {
    const stream = await openai().chat.completions.create({
      model: 'claude-fan',
      n: 2,
      messages: [{ role: 'user', content: 'Say something' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const byIndex = new Map<number, string>();
    const finishes = new Map<number, string>();
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        byIndex.set(choice.index, (byIndex.get(choice.index) ?? '') + (choice.delta.content ?? ''));
        if (choice.finish_reason) finishes.set(choice.index, choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(upstream.requests).toHaveLength(2);
    expect([...byIndex.keys()].sort()).toEqual([0, 1]);
    expect([...byIndex.values()].sort()).toEqual(texts().sort());
    expect([...finishes.values()]).toEqual(['stop', 'stop']);
    const total = sum(upstream.usages);
    expect({ prompt: usage!.prompt_tokens, completion: usage!.completion_tokens }).toEqual(total);
    const state = await billed();
    expect({ prompt: state.logs[0]!.prompt_tokens, completion: state.logs[0]!.completion_tokens }).toEqual(total);
  });

  it('@google/genai candidateCount: 2 gets two candidates', async () => {
    const genai = new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } });
    const answer = await genai.models.generateContent({ model: 'claude-fan', contents: 'Say something', config: { candidateCount: 2 } });
    expect(upstream.requests).toHaveLength(2);
    expect(answer.candidates!.map((candidate) => candidate.content!.parts![0]!.text).sort()).toEqual(texts().sort());
    const total = sum(upstream.usages);
    expect({ prompt: answer.usageMetadata!.promptTokenCount, completion: answer.usageMetadata!.candidatesTokenCount }).toEqual(total);
  });

  it('a call that fails before answering fails the request, and nothing is billed', async () => {
    const before = await billed();
    upstream.plan.push('ok', 'fail', 'ok');
    const error = await openai()
      .chat.completions.create({ model: 'claude-fan', n: 3, messages: [{ role: 'user', content: 'Say something' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(upstream.requests).toHaveLength(3);
    const after = await billed();
    expect(after.logs).toHaveLength(before.logs.length);
    expect(after.userUsed).toBe(before.userUsed);
  });

  it('a stream broken by one call bills the calls that completed, and nothing for the broken one', async () => {
    const before = await billed();
    upstream.plan.push('ok', 'break');
    const stream = await openai().chat.completions.create({
      model: 'claude-fan',
      n: 2,
      messages: [{ role: 'user', content: 'Say something' }],
      stream: true,
    });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        /* read to the end */
      }
      return null;
    })().catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(Error);
    const after = await billed();
    expect(after.logs).toHaveLength(before.logs.length + 1);
    const completed = sum(upstream.usages.filter((usage) => usage.complete));
    expect(upstream.usages.filter((usage) => usage.complete)).toHaveLength(1);
    expect({ prompt: after.logs[0]!.prompt_tokens, completion: after.logs[0]!.completion_tokens }).toEqual(completed);
  });

  it('the hold covers n answers: a balance that pays for two likely answers is refused three, with the amounts', async () => {
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'claude-fan': 1, 'claude-fan-hold': 1 }));
    await setOption(server.ctx, 'CompletionRatio', JSON.stringify({ 'claude-fan-hold': 1 }));
    await setOption(server.ctx, 'HoldOutputTokens', '10000');
    const holdChannel = await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant-fan',
      baseURL: upstream.url,
      models: ['claude-fan-hold'],
    });
    // A likely answer holds about 10,000 (its prompt and 10,000 output tokens at ratio 1).
    const poor = await createSdkCaller(server.ctx, 25_000);
    const client = new OpenAI({ apiKey: poor.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    // Three first: an answer served teaches the model's likely output, which the mock keeps short.
    const three = await client.chat.completions
      .create({ model: 'claude-fan-hold', n: 3, max_tokens: 10_000, messages: [{ role: 'user', content: 'Say something' }] })
      .catch((caught: unknown) => caught);
    expect(three).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((three as Error).message).toMatch(/Insufficient user quota for this request/);
    expect(upstream.requests).toHaveLength(0);
    const two = await client.chat.completions.create({
      model: 'claude-fan-hold',
      n: 2,
      max_tokens: 10_000,
      messages: [{ role: 'user', content: 'Say something' }],
    });
    expect(two.choices).toHaveLength(2);
    const state = await billedState(server.ctx, { ...poor, channelId: holdChannel });
    expect(state.logs).toHaveLength(1);
  });

  it('n beyond the fan-out limit is a 400 before any call; n on an OpenAI channel still goes upstream as n', async () => {
    const error = await openai()
      .chat.completions.create({ model: 'claude-fan', n: 17, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toMatch(/16/);
    expect(upstream.requests).toHaveLength(0);
  });
});
