import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { createSdkCaller } from './sdk-setup.js';

const rateLimited = (
  headers: Record<string, string>,
  body = JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }),
) => ({ status: 429, contentType: 'application/json', body, headers });
const geminiExhausted = JSON.stringify({
  error: {
    code: 429,
    message: 'Resource has been exhausted',
    status: 'RESOURCE_EXHAUSTED',
    details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' }],
  },
});

/** A pass-through proxy in front of ModelGate that counts the requests the clients make. */
async function startCountingProxy(target: string): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    count += 1;
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Errors a client can act on: the upstream's wait is passed on, and what no retry can help is not retried. */
describe('Retry-After and the no-channel answer', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let caller: { userId: number; tokenId: number; apiKey: string };

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-busy': 1, 'gemini-busy': 1, 'gpt-two': 1, 'priced-orphan': 1 }));
    await setOption(server.ctx, 'RetryTimes', '1');
    caller = await createSdkCaller(server.ctx);
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-a', baseURL: upstream.url, models: ['gpt-busy'], autoBan: false });
    await createRelayChannel(server.ctx, { type: 24, key: 'AIza', baseURL: upstream.url, models: ['gemini-busy'], autoBan: false });
    await createRelayChannel(server.ctx, {
      type: 1,
      key: 'sk-b',
      baseURL: upstream.url,
      models: ['gpt-two'],
      priority: 10,
      autoBan: false,
    });
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-c', baseURL: upstream.url, models: ['gpt-two'], priority: 0, autoBan: false });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  const chat = (model: string) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('an upstream 429 passes its Retry-After on, and the openai client waits that long before its retry', async () => {
    upstream.reply(rateLimited({ 'retry-after': '1' }));
    const res = await chat('gpt-busy');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('retry-after-ms')).toBe('1000');
    expect(((await res.json()) as any).error.code).toBe('upstream_rate_limited');

    upstream.reply(rateLimited({ 'retry-after-ms': '800' }));
    upstream.reply(rateLimited({ 'retry-after-ms': '800' }));
    const before = upstream.requests.length;
    const startedAt = Date.now();
    const failure = await new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 1 }).chat.completions
      .create({ model: 'gpt-busy', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect(upstream.requests.length).toBe(before + 2);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(750);
  });

  it('LangChain retries a 429 only with that hint: with Retry-After it waits and succeeds, without it fails at once', async () => {
    const model = new ChatOpenAI({
      model: 'gpt-busy',
      apiKey: caller.apiKey,
      configuration: { baseURL: `${server.url}/v1` },
      maxRetries: 2,
    });
    upstream.reply(rateLimited({ 'retry-after': '1' }));
    upstream.reply({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-busy',
        choices: [{ index: 0, message: { role: 'assistant', content: 'after the wait' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
      }),
    });
    const before = upstream.requests.length;
    const startedAt = Date.now();
    expect((await model.invoke('hi')).text).toBe('after the wait');
    expect(upstream.requests.length).toBe(before + 2);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);

    upstream.reply(rateLimited({}));
    const headerless = await model.invoke('hi').catch((error: unknown) => error);
    expect((headerless as Error).name).toBe('RateLimitCapacityError');
    expect(upstream.requests.length).toBe(before + 3);
  });

  it("Gemini's RetryInfo becomes Retry-After, in each route's own error format", async () => {
    upstream.reply({ status: 429, contentType: 'application/json', body: geminiExhausted });
    const gemini = await fetch(`${server.url}/v1beta/models/gemini-busy:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': caller.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(gemini.status).toBe(429);
    expect(gemini.headers.get('retry-after')).toBe('2');
    expect(((await gemini.json()) as any).error.status).toBe('RESOURCE_EXHAUSTED');
    upstream.reply({ status: 429, contentType: 'application/json', body: geminiExhausted });
    const failure = await new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 }).messages
      .create({ model: 'gemini-busy', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.RateLimitError);
    expect((failure as InstanceType<typeof Anthropic.RateLimitError>).headers.get('retry-after')).toBe('2');
  });

  it('when every channel failed, the shortest wait any of them asked for is given', async () => {
    upstream.reply(rateLimited({ 'retry-after': '7' }));
    upstream.reply({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }),
      headers: { 'retry-after': '3' },
    });
    const res = await chat('gpt-two');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('a priced model that no channel serves is a 404 the SDK does not retry; the request reaches the gateway once', async () => {
    const proxy = await startCountingProxy(server.url);
    try {
      const failure = await new OpenAI({ apiKey: caller.apiKey, baseURL: `${proxy.url}/v1` }).chat.completions
        .create({ model: 'priced-orphan', messages: [{ role: 'user', content: 'hi' }] })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
      expect((failure as Error).message).toContain('No available channel for model priced-orphan');
      expect(proxy.count()).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
