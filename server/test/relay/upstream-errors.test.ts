import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUpstreamText } from '../../src/relay/errors.js';
import { closedPort, internalAddress, startHostileUpstream, type HostileUpstream } from '../helpers/hostile-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** What must never reach a caller: channel keys, the upstream's and internal addresses. */
function expectNothingLeaked(text: string, keys: string[], upstreamUrl: string): void {
  for (const key of keys) expect(text).not.toContain(key.slice(8));
  expect(text).not.toContain('sk-proj-');
  expect(text).not.toContain(internalAddress.split(':')[0]);
  expect(text).not.toContain('3849');
  expect(text).not.toContain('corp.internal');
  expect(text).not.toContain(new URL(upstreamUrl).port);
  expect(text).not.toContain('127.0.0.1');
  expect(text).not.toContain('invalid_api_key');
}

async function caught(promise: Promise<unknown>): Promise<{ status: number; body: string; error: unknown }> {
  try {
    await promise;
  } catch (error) {
    const apiError = error as { status?: number; error?: unknown; message?: string };
    return { status: apiError.status ?? 0, body: `${JSON.stringify(apiError.error ?? null)} ${apiError.message ?? ''}`, error };
  }
  throw new Error('expected the call to fail');
}

describe('upstream errors reach callers classified and redacted, on every inbound format', () => {
  let server: TestServer;
  let upstream: HostileUpstream;
  let openai: OpenAI;
  let apiKey: string;
  const keys: Record<string, string> = {};
  const secret = 'Zq7sL0dM4xV9pT2kR8wY1nB6';
  const logLines: string[] = [];

  beforeAll(async () => {
    upstream = await startHostileUpstream();
    const loggerStream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' }, loggerStream });
    await setOption(server.ctx, 'RetryTimes', '0');
    const models = ['h-400', 'h-401', 'h-403', 'h-429', 'h-500', 'h-503', 'h-stream', 'h-down'];
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({
        ...server.ctx.options.json<Record<string, number>>('ModelRatio'),
        ...Object.fromEntries(models.map((model) => [model, 1])),
      }),
    );
    for (const status of ['400', '401', '403', '429', '500', '503']) {
      keys[status] = `sk-proj-echo${status}-${secret}`;
      await createRelayChannel(server.ctx, { key: keys[status]!, baseURL: upstream.url, models: [`h-${status}`], autoBan: false });
    }
    keys.stream = `sk-proj-stream-${secret}`;
    await createRelayChannel(server.ctx, { key: keys.stream, baseURL: upstream.url, models: ['h-stream'], autoBan: false });
    keys.down = `sk-proj-down-${secret}`;
    await createRelayChannel(server.ctx, {
      key: keys.down,
      baseURL: `http://127.0.0.1:${await closedPort()}`,
      models: ['h-down'],
      autoBan: false,
    });
    const userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    apiKey = (await createRelayToken(server.ctx, userId)).apiKey;
    openai = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  const chat = (model: string) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

  it('answers channel-side failures as gateway errors with a generic message (OpenAI SDK)', async () => {
    const expected: Array<[string, number, string, string]> = [
      ['h-401', 502, 'upstream_error', 'upstream_error'],
      ['h-403', 502, 'upstream_error', 'upstream_error'],
      ['h-429', 429, 'rate_limit_error', 'upstream_rate_limited'],
      ['h-500', 500, 'upstream_error', 'upstream_error'],
      ['h-503', 503, 'upstream_error', 'upstream_error'],
      ['h-down', 502, 'upstream_error', 'upstream_unreachable'],
    ];
    for (const [model, status, type, code] of expected) {
      const failure = await caught(chat(model));
      expect(failure.error, model).toBeInstanceOf(OpenAI.APIError);
      expect(failure.error, model).not.toBeInstanceOf(OpenAI.AuthenticationError);
      expect(failure.status, model).toBe(status);
      expect((failure.error as InstanceType<typeof OpenAI.APIError>).error, model).toMatchObject({ type, code });
      expectNothingLeaked(failure.body, Object.values(keys), upstream.url);
    }
  });

  it("keeps a caller's-fault message (upstream 400), redacted", async () => {
    const failure = await caught(chat('h-400'));
    expect(failure.error).toBeInstanceOf(OpenAI.BadRequestError);
    const error = (failure.error as InstanceType<typeof OpenAI.APIError>).error as { message: string; code: string; type: string };
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value' });
    expect(error.message).toContain("Invalid value for 'temperature': must be at most 2");
    expectNothingLeaked(failure.body, Object.values(keys), upstream.url);
  });

  it('redacts an error event after the first byte of a stream', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'h-stream', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('Hello');
    expect(text).toContain('"type":"upstream_error"');
    expect(text).toContain('data: [DONE]');
    expectNothingLeaked(text, Object.values(keys), upstream.url);
  });

  it('embeddings, the Anthropic and Gemini formats get the same classification', async () => {
    const failures = [
      await caught(openai.embeddings.create({ model: 'h-401', input: 'hi' })),
      await caught(openai.images.generate({ model: 'h-401', prompt: 'a cat' })),
      await caught(openai.audio.speech.create({ model: 'h-401', voice: 'alloy', input: 'hi' })),
      await caught(openai.responses.create({ model: 'h-401', input: 'hi' })),
    ];
    for (const failure of failures) {
      expect(failure.status).toBe(502);
      expectNothingLeaked(failure.body, Object.values(keys), upstream.url);
    }

    const anthropic = new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });
    for (const model of ['h-401', 'h-500', 'h-down']) {
      const failure = await caught(anthropic.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }));
      expect(failure.error, model).toBeInstanceOf(Anthropic.APIError);
      expect(failure.error, model).not.toBeInstanceOf(Anthropic.AuthenticationError);
      expect(failure.status, model).toBeGreaterThanOrEqual(500);
      expect(failure.body).toContain('api_error');
      expectNothingLeaked(failure.body, Object.values(keys), upstream.url);
    }
    const streamed = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'h-stream', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const streamedText = await streamed.text();
    expect(streamedText).toContain('event: error');
    expectNothingLeaked(streamedText, Object.values(keys), upstream.url);

    const responses = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'h-stream', stream: true, input: 'hi' }),
    });
    const responsesText = await responses.text();
    expect(responsesText).toContain('Hello');
    expect(responsesText).toContain('event: error');
    expectNothingLeaked(responsesText, Object.values(keys), upstream.url);

    const gemini = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.url } });
    for (const model of ['h-401', 'h-429', 'h-down']) {
      const failure = await caught(gemini.models.generateContent({ model, contents: 'hi' }));
      expect(failure.status, model).not.toBe(401);
      expectNothingLeaked(failure.body, Object.values(keys), upstream.url);
    }
  });

  it('logs the full upstream failure for the admin, with the channel id and without the key', async () => {
    await caught(chat('h-500'));
    const line = logLines
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .findLast((entry) => entry.msg === 'upstream request failed');
    expect(line).toMatchObject({ upstreamStatus: 500, channelId: expect.any(Number) });
    expect(String(line!.upstreamMessage)).toContain(`connect ECONNREFUSED ${internalAddress}`);
    expect(String(line!.upstreamBody)).toContain(internalAddress);
    expect(logLines.join('\n')).not.toContain(secret);
  });

  it('redacts key-like strings, URLs, hosts and IP:port but keeps the words', () => {
    const text = redactUpstreamText(
      'Bad key sk-proj-abcDEF123456 AIzaSyA1234567890abcdef at https://api.example.com/v1?key=x, 10.0.0.1:8080, [::1]:443, redis:6379 and localhost:3000; Authorization: Bearer abc.def; messages.0.content is required',
    );
    expect(text).toBe(
      'Bad key sk-*** AIza*** at [upstream] [upstream], [upstream], [upstream] and [upstream]; Authorization: Bearer ***; messages.0.content is required',
    );
    expect(redactUpstreamText('Access denied for key 0123456789abcdef0123456789abcdef on deployment gpt-4o-mini-2024-07-18')).toBe(
      'Access denied for key *** on deployment gpt-4o-mini-2024-07-18',
    );
  });
});
