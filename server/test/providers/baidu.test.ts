import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { baiduAdapter, validateBaiduKey } from '../../src/relay/providers/baidu/index.js';
import { baiduStatusOf } from '../../src/relay/providers/baidu/errors.js';
import { BaiduTokenCache, baiduTokenCache } from '../../src/relay/providers/baidu/token.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import {
  emptyOptions,
  makeTarget,
  readFixture,
  recordedDispatcher,
  sendUpstream,
  splitNdjson,
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
beforeEach(() => {
  baiduTokenCache.clear();
  upstream.received.length = 0;
});

const accessToken = '24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074';
const callFor = (model: string, isStream = false, key = 'ak-1|sk-1'): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: makeTarget(upstream.baseURL, key),
  options: emptyOptions,
});
const converter = baiduAdapter.chatConverter!;
const tokenRequests = () => upstream.received.filter((request) => request.url.startsWith('/oauth/2.0/token'));

function expectUpstreamError(run: () => unknown, fields: Record<string, unknown>) {
  try {
    run();
    expect.unreachable();
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject(fields);
  }
}

describe('Baidu ERNIE adapter (type 15): chat', () => {
  it('issues an access token, then posts the converted body to the model endpoint with it', async () => {
    upstream.reply({ body: readFixture('baidu', 'token.json') });
    upstream.reply({ body: readFixture('baidu', 'chat.json') });
    const body = {
      model: 'ERNIE-4.0-8K',
      user: 'u-42',
      temperature: 1.7,
      top_p: 0.9,
      frequency_penalty: 0.5,
      max_tokens: 300,
      stop: 'END',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Speak Chinese.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'user', content: 'Who are you?' },
      ],
    };
    const { text } = await sendUpstream(await converter.buildRequest(body, callFor('ERNIE-4.0-8K')));
    const [token, chat] = upstream.received;
    expect(token!.method).toBe('POST');
    expect(token!.url).toBe('/oauth/2.0/token?grant_type=client_credentials&client_id=ak-1&client_secret=sk-1');
    expect(chat!.url).toBe(`/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=${accessToken}`);
    expect(chat!.json).toEqual({
      system: 'Be brief.\nSpeak Chinese.',
      messages: [{ role: 'user', content: 'Hi\nWho are you?' }],
      temperature: 1,
      top_p: 0.9,
      penalty_score: 1,
      max_output_tokens: 300,
      stop: ['END'],
      user_id: 'u-42',
      stream: false,
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'ERNIE-4.0-8K');
    expect(usage).toEqual({ promptTokens: 4, completionTokens: 17, cachedTokens: 0 });
    expect(completion).toMatchObject({
      id: 'chatcmpl-as-bcmt5ct4iy',
      object: 'chat.completion',
      model: 'ERNIE-4.0-8K',
      choices: [{ index: 0, message: { role: 'assistant', content: '您好，我是文心一言，英文名是ERNIE Bot。' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 17, total_tokens: 21 },
    });
  });

  it('maps models to wenxinworkshop endpoints (else the lowercased name) and clamps penalty_score to 1–2', async () => {
    upstream.reply({ body: readFixture('baidu', 'token.json') });
    const urls: Record<string, string> = {};
    for (const model of ['ERNIE-3.5-8K', 'ERNIE-Speed-8K', 'ernie-lite-8k-0922', 'ERNIE-Speed-128K', 'My-Deploy']) {
      const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'x' }], frequency_penalty: 3 }, callFor(model));
      urls[model] = new URL(built.url).pathname.split('/').at(-1)!;
      expect((built.body as Record<string, unknown>).penalty_score).toBe(2);
    }
    expect(urls).toEqual({
      'ERNIE-3.5-8K': 'completions',
      'ERNIE-Speed-8K': 'ernie_speed',
      'ernie-lite-8k-0922': 'eb-instant',
      'ERNIE-Speed-128K': 'ernie-speed-128k',
      'My-Deploy': 'my-deploy',
    });
    expect(tokenRequests()).toHaveLength(1);
  });

  it("streams is_end frames into OpenAI chunks with the last frame's usage", async () => {
    upstream.reply({ body: readFixture('baidu', 'token.json') });
    upstream.reply({ contentType: 'text/event-stream', body: readFixture('baidu', 'chat-stream.chunks.txt') });
    const { text } = await sendUpstream(
      await converter.buildRequest({ messages: [{ role: 'user', content: '给点建议' }] }, callFor('ERNIE-3.5-8K', true)),
    );
    expect(upstream.received.at(-1)!.json).toMatchObject({ stream: true });
    const transform = converter.createStreamTransform('ERNIE-3.5-8K');
    const results = splitNdjson(text).map((event) => transform.onEvent(event));
    const chunks = results.flatMap((result) => result.chunks) as any[];
    expect(chunks[0]).toMatchObject({
      id: 'chatcmpl-as-vb0m37ti8y',
      object: 'chat.completion.chunk',
      choices: [{ delta: { role: 'assistant', content: '当然可以，' } }],
    });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('当然可以，以下是一些建议。');
    expect(chunks.at(-2).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } });
    expect(results.map((result) => result.text).join('')).toBe('当然可以，以下是一些建议。');
    expect(transform.finish()).toEqual({ chunks: [], text: '', usage: { promptTokens: 5, completionTokens: 9, cachedTokens: 0 } });
  });

  it('closes a stream cut before is_end with a finish chunk', () => {
    const transform = converter.createStreamTransform('ERNIE-3.5-8K');
    const [first] = splitNdjson(readFixture('baidu', 'chat-stream.chunks.txt'));
    expect(transform.onEvent(first!).text).toBe('当然可以，');
    const end = transform.finish();
    expect((end.chunks[0] as any).choices[0].finish_reason).toBe('stop');
    expect(end.usage).toEqual({ promptTokens: 5, completionTokens: 2, cachedTokens: 0 });
  });
});

describe('Baidu ERNIE adapter (type 15): errors', () => {
  it('turns HTTP-200 error bodies into UpstreamErrors with mapped statuses', () => {
    expectUpstreamError(() => converter.parseResponse(JSON.parse(readFixture('baidu', 'error-200.json')), 'ERNIE-3.5-8K'), {
      status: 400,
      upstreamCode: '336003',
      message: 'the first message role must be user',
      retryable: false,
    });
    expectUpstreamError(() => converter.parseResponse(JSON.parse(readFixture('baidu', 'error-qps.json')), 'ERNIE-3.5-8K'), {
      status: 429,
      retryable: true,
    });
    expect([6, 13, 14, 15, 336004].map(baiduStatusOf)).toEqual([401, 401, 401, 401, 401]);
    expect([110, 111].map(baiduStatusOf)).toEqual([503, 503]);
    expect([4, 17, 18, 336501, 336502].map(baiduStatusOf)).toEqual([429, 429, 429, 429, 429]);
    expect([336001, 336006, 336104].map(baiduStatusOf)).toEqual([400, 400, 400]);
    expect([1, 336000, 336200, 999].map(baiduStatusOf)).toEqual([500, 500, 500, 500]);
    expect([2, 336100].map(baiduStatusOf)).toEqual([503, 503]);
  });

  it('throws an error line in a stream (bare JSON or a data: frame) from onEvent', () => {
    const bare = converter.createStreamTransform('ERNIE-3.5-8K');
    expectUpstreamError(() => bare.onEvent({ event: null, data: readFixture('baidu', 'error-qps.json').trim() }), {
      status: 429,
      upstreamCode: '18',
    });
    const framed = converter.createStreamTransform('ERNIE-3.5-8K');
    expectUpstreamError(() => framed.onEvent({ event: null, data: `data: ${readFixture('baidu', 'error-200.json').trim()}` }), {
      status: 400,
    });
  });

  it('forgets the cached token when Baidu answers 110/111, so the next call issues a new one', async () => {
    upstream.reply({ body: readFixture('baidu', 'token.json') });
    await converter.buildRequest({ messages: [] }, callFor('ERNIE-3.5-8K'));
    await converter.buildRequest({ messages: [] }, callFor('ERNIE-3.5-8K'));
    expect(tokenRequests()).toHaveLength(1);
    expectUpstreamError(() => converter.parseResponse(JSON.parse(readFixture('baidu', 'error-token-expired.json')), 'ERNIE-3.5-8K'), {
      status: 503,
      upstreamCode: '111',
      retryable: true,
    });
    upstream.reply({ body: JSON.stringify({ access_token: 'fresh-token', expires_in: 2592000 }) });
    const built = await converter.buildRequest({ messages: [] }, callFor('ERNIE-3.5-8K'));
    expect(tokenRequests()).toHaveLength(2);
    expect(built.url).toMatch(/\?access_token=fresh-token$/);
  });

  it('a rejected API key fails the token request with 401 and is not cached; a malformed key fails before any request', async () => {
    upstream.reply({ status: 401, body: readFixture('baidu', 'token-error.json') });
    await expect(converter.buildRequest({ messages: [] }, callFor('ERNIE-3.5-8K', false, 'bad|key'))).rejects.toMatchObject({
      status: 401,
      upstreamCode: 'invalid_client',
      message: expect.stringContaining('unknown client id'),
    });
    upstream.reply({ status: 200, body: readFixture('baidu', 'token-error.json') });
    await expect(converter.buildRequest({ messages: [] }, callFor('ERNIE-3.5-8K', false, 'bad|key'))).rejects.toMatchObject({
      status: 401,
    });
    expect(tokenRequests()).toHaveLength(2);
    await expect(converter.buildRequest({ messages: [] }, callFor('ERNIE-3.5-8K', false, 'no-secret'))).rejects.toMatchObject({
      status: 401,
    });
    expect(tokenRequests()).toHaveLength(2);
    expect(baiduAdapter.errors.parse(401, readFixture('baidu', 'token-error.json'))).toEqual({
      message: 'unknown client id',
      code: 'invalid_client',
    });
    expect(baiduAdapter.errors.parse(500, readFixture('baidu', 'error-qps.json'))).toEqual({
      message: 'Open api qps request limit reached',
      code: '18',
    });
    expect(baiduAdapter.errors.parse(502, '<html>bad gateway</html>')).toEqual({ message: '<html>bad gateway</html>', code: null });
  });
});

describe('Baidu ERNIE adapter (type 15): token cache', () => {
  const credential = () => ({ base: upstream.baseURL, apiKey: 'ak-cache', secretKey: 'sk-cache', dispatcher: recordedDispatcher });

  it('shares one token request among 5 concurrent callers and refreshes an hour before expiry (injected clock)', async () => {
    let now = 1_700_000_000_000;
    const cache = new BaiduTokenCache(() => now);
    upstream.reply({ body: JSON.stringify({ access_token: 'first', expires_in: 7200 }) });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => cache.getAccessToken(credential())));
    expect(tokens).toEqual(['first', 'first', 'first', 'first', 'first']);
    expect(tokenRequests()).toHaveLength(1);
    now += 59 * 60 * 1000;
    expect(await cache.getAccessToken(credential())).toBe('first');
    expect(tokenRequests()).toHaveLength(1);
    now += 2 * 60 * 1000; // 61 minutes in: within the hour before expiry
    upstream.reply({ body: JSON.stringify({ access_token: 'second', expires_in: 7200 }) });
    expect(await cache.getAccessToken(credential())).toBe('second');
    expect(tokenRequests()).toHaveLength(2);
  });

  it('keeps tokens per key and does not cache a failed issue', async () => {
    const cache = new BaiduTokenCache(() => 0);
    upstream.reply({ status: 500, body: '{"error":"server_error"}' });
    await expect(cache.getAccessToken(credential())).rejects.toMatchObject({ status: 500 });
    upstream.reply({ body: JSON.stringify({ access_token: 'after-failure', expires_in: 2592000 }) });
    expect(await cache.getAccessToken(credential())).toBe('after-failure');
    upstream.reply({ body: JSON.stringify({ access_token: 'other-key', expires_in: 2592000 }) });
    expect(await cache.getAccessToken({ ...credential(), apiKey: 'ak-other' })).toBe('other-key');
    expect(await cache.getAccessToken(credential())).toBe('after-failure');
    expect(tokenRequests()).toHaveLength(3);
  });
});

describe('Baidu ERNIE adapter (type 15): embeddings and registration', () => {
  it('posts {input:[…]} to the embedding endpoint and answers OpenAI embeddings with usage', async () => {
    upstream.reply({ body: readFixture('baidu', 'token.json') });
    upstream.reply({ body: readFixture('baidu', 'embeddings.json') });
    const embeddings = baiduAdapter.embeddingsConverter!;
    const { text } = await sendUpstream(
      await embeddings.buildRequest({ model: 'bge-large-zh', input: ['你好', '世界'] }, callFor('bge-large-zh')),
    );
    const sent = upstream.received.at(-1)!;
    expect(sent.url).toBe(`/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/bge_large_zh?access_token=${accessToken}`);
    expect(sent.json).toEqual({ input: ['你好', '世界'] });
    const { response, usage } = embeddings.parseResponse(JSON.parse(text), 'bge-large-zh');
    expect(usage).toEqual({ promptTokens: 12, completionTokens: 0, cachedTokens: 0 });
    expect(response).toEqual({
      object: 'list',
      model: 'bge-large-zh',
      usage: { prompt_tokens: 12, total_tokens: 12 },
      data: [
        { object: 'embedding', index: 0, embedding: [0.018314670771360397, 0.00942440889775753, -0.036405418068170547] },
        { object: 'embedding', index: 1, embedding: [0.12, -0.5, 0.25] },
      ],
    });
    const single = await embeddings.buildRequest({ model: 'Embedding-V1', input: 'one' }, callFor('Embedding-V1'));
    expect(single.url).toContain('/wenxinworkshop/embeddings/embedding-v1?access_token=');
    expect(single.body).toEqual({ input: ['one'] });
    expectUpstreamError(() => embeddings.parseResponse(JSON.parse(readFixture('baidu', 'error-qps.json')), 'tao-8k'), { status: 429 });
  });

  it('validates APIKey|SecretKey and is registered as type 15', () => {
    expect(validateBaiduKey('abc')).toMatch(/APIKey\|SecretKey/);
    expect(validateBaiduKey('abc|')).toMatch(/APIKey\|SecretKey/);
    expect(validateBaiduKey('abc|def')).toBeNull();
    expect(adapterForType(15)).toBe(baiduAdapter);
    expect(baiduAdapter.meta).toMatchObject({ type: 15, defaultBaseURL: 'https://aip.baidubce.com' });
    expect([...baiduAdapter.endpoints]).toEqual(['chat', 'embeddings']);
  });
});
