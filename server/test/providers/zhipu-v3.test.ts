import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { zhipuAdapter, validateZhipuChannel } from '../../src/relay/providers/zhipu/index.js';
import { ZhipuTokenCache, createZhipuJwt, zhipuTokenCache } from '../../src/relay/providers/zhipu/jwt.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall, StreamFraming } from '../../src/relay/providers/types.js';
import { decodeStream } from './helpers/decode-stream.js';
import {
  emptyOptions,
  makeTarget,
  readFixture,
  sendUpstream,
  startRecordedUpstream,
  type RecordedUpstream,
} from './helpers/recorded-upstream.js';

let upstream: RecordedUpstream;
beforeAll(async () => {
  upstream = await startRecordedUpstream();
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => zhipuTokenCache.clear());

const key = 'a1b2c3d4e5.s3cr3tS3cr3t';
const callFor = (isStream: boolean, model = 'chatglm_turbo'): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: makeTarget(upstream.baseURL, key),
  options: emptyOptions,
});
const converter = zhipuAdapter.chatConverter;

const decode = (text: string, framing: StreamFraming = 'sse-raw') => decodeStream(text, framing);

/** Splits a JWT and checks its HS256 signature with node:crypto, independently of the adapter. */
function verifyJwt(token: string, secret: string) {
  const [header, claims, signature] = token.split('.');
  const expected = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  return {
    isSignatureValid: signature === expected,
    header: JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')),
    claims: JSON.parse(Buffer.from(claims!, 'base64url').toString('utf8')),
  };
}

describe('Zhipu v3 JWT (type 16)', () => {
  it('signs {api_key, exp, timestamp} in milliseconds with HS256 and sign_type SIGN', () => {
    const now = 1_700_000_000_123;
    const { isSignatureValid, header, claims } = verifyJwt(createZhipuJwt('a1b2c3d4e5', 's3cr3tS3cr3t', now), 's3cr3tS3cr3t');
    expect(isSignatureValid).toBe(true);
    expect(header).toEqual({ alg: 'HS256', sign_type: 'SIGN' });
    expect(claims).toEqual({ api_key: 'a1b2c3d4e5', exp: now + 24 * 3600 * 1000, timestamp: now });
    expect(verifyJwt(createZhipuJwt('a1b2c3d4e5', 's3cr3tS3cr3t', now), 'other-secret').isSignatureValid).toBe(false);
  });

  it('reuses a token until an hour before it expires, per key; rejects keys without id.secret as 401', async () => {
    let now = 1_700_000_000_000;
    const cache = new ZhipuTokenCache(() => now);
    const [first, concurrent] = await Promise.all([cache.getToken(key), cache.getToken(key)]);
    expect(concurrent).toBe(first);
    now += 22 * 3600 * 1000;
    expect(await cache.getToken(key)).toBe(first);
    expect(await cache.getToken('other.secret')).not.toBe(first);
    now += 1.5 * 3600 * 1000;
    const renewed = await cache.getToken(key);
    expect(renewed).not.toBe(first);
    expect(verifyJwt(renewed, 's3cr3tS3cr3t').claims.timestamp).toBe(now);
    await expect(cache.getToken('no-dot')).rejects.toMatchObject({ status: 401 });
  });
});

describe('Zhipu v3 adapter (type 16)', () => {
  it('posts the prompt to /invoke with the raw JWT and converts the quoted answer', async () => {
    upstream.reply({ body: readFixture('zhipu-v3', 'invoke.json') });
    const body = {
      model: 'glm',
      temperature: 0.5,
      top_p: 0.7,
      max_tokens: 99,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Who are you?' },
      ],
    };
    const { text } = await sendUpstream(await converter.buildRequest(body, callFor(false)));
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/api/paas/v3/model-api/chatglm_turbo/invoke');
    expect(received.headers.authorization).not.toMatch(/^Bearer/);
    const jwt = verifyJwt(String(received.headers.authorization), 's3cr3tS3cr3t');
    expect(jwt.isSignatureValid).toBe(true);
    expect(jwt.claims.api_key).toBe('a1b2c3d4e5');
    expect(received.json).toEqual({
      prompt: [
        { role: 'user', content: 'Be brief.' },
        { role: 'assistant', content: 'Okay' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Who are you?' },
      ],
      temperature: 0.5,
      top_p: 0.7,
      incremental: true,
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'chatglm_turbo');
    expect(usage).toEqual({ promptTokens: 17, completionTokens: 12, cachedTokens: 0 });
    expect(completion).toMatchObject({
      id: 'chatcmpl-75931252186628016897601864755556524089',
      object: 'chat.completion',
      model: 'chatglm_turbo',
      choices: [{ index: 0, message: { role: 'assistant', content: ' Hello! I am ChatGLM.\nHow can I help?' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 17, completion_tokens: 12, total_tokens: 29 },
    });
  });

  it('turns HTTP-200 failures into UpstreamErrors with mapped statuses', () => {
    const failureOf = (json: string) => {
      try {
        converter.parseResponse(JSON.parse(json), 'chatglm_turbo');
      } catch (error) {
        return error;
      }
      return null;
    };
    expect(failureOf(readFixture('zhipu-v3', 'invoke-auth-error.json'))).toMatchObject({
      name: 'UpstreamError',
      status: 401,
      upstreamCode: '1002',
      retryable: true,
    });
    expect(failureOf(readFixture('zhipu-v3', 'invoke-rate-error.json'))).toMatchObject({ status: 429, upstreamCode: '1302' });
    expect(failureOf('{"code":1214,"msg":"prompt 参数非法","success":false}')).toMatchObject({ status: 400, retryable: false });
    expect(failureOf('{"code":1113,"msg":"欠费","success":false}')).toMatchObject({ status: 403 });
    expect(failureOf('{"code":500,"msg":"内部错误","success":false}')).toMatchObject({ status: 500 });
    expect(failureOf('{"success":false}')).toBeInstanceOf(UpstreamError);
  });

  it('streams /sse-invoke: raw-text data lines (multi-line = newlines, spaces kept) and usage from meta', async () => {
    upstream.reply({ contentType: 'text/event-stream', body: readFixture('zhipu-v3', 'sse-invoke.chunks.txt') });
    const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'Hi' }], stream: true }, callFor(true));
    const { text } = await sendUpstream(built);
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
    expect(received.headers.accept).toBe('text/event-stream');
    expect(received.json).toEqual({ prompt: [{ role: 'user', content: 'Hi' }], incremental: true });
    expect(converter.framing).toBe('sse-raw');
    const transform = converter.createStreamTransform('chatglm_turbo');
    const results = decode(text).map((event) => transform.onEvent(event));
    const chunks = results.flatMap((result) => result.chunks) as any[];
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: 'Hello' });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('Hello world,\nsecond line done.');
    expect(results.map((result) => result.text).join('')).toBe('Hello world,\nsecond line done.');
    expect(chunks.at(-1)).toMatchObject({
      object: 'chat.completion.chunk',
      model: 'chatglm_turbo',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(transform.finish().usage).toEqual({ promptTokens: 9, completionTokens: 7, cachedTokens: 0 });
  });

  it('throws error events and a JSON refusal of the stream request as UpstreamErrors', () => {
    const transform = converter.createStreamTransform('chatglm_turbo');
    const [first, second] = decode(readFixture('zhipu-v3', 'sse-error.chunks.txt'));
    expect(transform.onEvent(first!).text).toBe('Par');
    expect(() => transform.onEvent(second!)).toThrow(
      expect.objectContaining({ status: 500, upstreamCode: 'error', message: 'model overloaded, try later' }),
    );
    expect(() => transform.onEvent({ event: 'interrupted', data: '' })).toThrow(expect.objectContaining({ status: 502 }));
    const refused = decode(readFixture('zhipu-v3', 'sse-refused.txt'));
    expect(refused).toHaveLength(1);
    expect(() => converter.createStreamTransform('m').onEvent(refused[0]!)).toThrow(
      expect.objectContaining({ status: 403, upstreamCode: '1113' }),
    );
    // Text that merely looks like JSON (no code/success) stays text.
    expect(converter.createStreamTransform('m').onEvent({ event: null, data: '{"answer": 42}' }).text).toBe('{"answer": 42}');
  });

  it('parses error bodies, validates id.secret keys, registered as type 16', () => {
    expect(zhipuAdapter.errors.parse(401, readFixture('zhipu-v3', 'invoke-auth-error.json'))).toEqual({
      message: 'Authorization Token非法，请确认Authorization Token正确传递。',
      code: '1002',
    });
    expect(zhipuAdapter.errors.parse(502, 'Bad Gateway')).toEqual({ message: 'Bad Gateway', code: null });
    expect(validateZhipuChannel('nodot')).toMatch(/id\.secret/);
    expect(validateZhipuChannel('.secret')).toMatch(/id\.secret/);
    expect(validateZhipuChannel('id.')).toMatch(/id\.secret/);
    expect(validateZhipuChannel(key)).toBeNull();
    expect(adapterForType(16)).toBe(zhipuAdapter);
    expect(zhipuAdapter.meta).toMatchObject({ type: 16, defaultBaseURL: 'https://open.bigmodel.cn' });
  });
});

describe("'sse-raw' framing", () => {
  const text = 'event:finish\ndata: two spaces kept\nmeta:{"a":1}\nid:7\n\n{"code":1,"success":false}\n\nevent:x\nmeta:only\n\n';

  it('keeps values verbatim, exposes extra fields, emits field-only events and bare JSON lines', () => {
    expect(decode(text)).toEqual([
      { event: 'finish', data: ' two spaces kept', fields: { meta: '{"a":1}' } },
      { event: null, data: '{"code":1,"success":false}' },
      { event: 'x', data: '', fields: { meta: 'only' } },
    ]);
  });

  it("leaves plain 'sse' as it was: one space stripped, unknown fields and stray lines dropped", () => {
    expect(decode(text, 'sse')).toEqual([{ event: 'finish', data: 'two spaces kept' }]);
  });
});
