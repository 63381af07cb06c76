import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { hunyuanErrorStatus } from '../../src/relay/providers/hunyuan/errors.js';
import { hunyuanAdapter } from '../../src/relay/providers/hunyuan/index.js';
import { parseHunyuanKey, validateHunyuanKey } from '../../src/relay/providers/hunyuan/key.js';
import { toHunyuanMessages } from '../../src/relay/providers/hunyuan/request.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import { readFixture, sendUpstream } from './helpers/fixture-upstream.js';
import { startHunyuanUpstream, type HunyuanUpstream } from './helpers/hunyuan-upstream.js';
import { emptyOptions, makeTarget, splitNdjson } from './helpers/recorded-upstream.js';

let upstream: HunyuanUpstream;
beforeAll(async () => {
  upstream = await startHunyuanUpstream({ AKIDhunyuan: 'hunyuan-secret' });
});
afterAll(async () => {
  await upstream.close();
});

const callFor = (isStream: boolean, key = '1300000000|AKIDhunyuan|hunyuan-secret', model = 'hunyuan-lite'): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: makeTarget(upstream.url, key),
  options: emptyOptions,
});
const converter = hunyuanAdapter.chatConverter;
const json = (name: string) => ({ status: 200, contentType: 'application/json', body: readFixture('hunyuan', name) });

function expectUpstreamError(run: () => unknown, fields: Record<string, unknown>) {
  try {
    run();
    expect.unreachable();
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject(fields);
  }
}

describe('Hunyuan adapter (type 23)', () => {
  it('sends a signed ChatCompletions call in PascalCase and converts the answer', async () => {
    upstream.reply(json('chat.json'));
    const body = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: '你好' }] },
      ],
      temperature: 0.7,
      top_p: 0.9,
      max_tokens: 16,
    };
    const { text } = await sendUpstream(await converter.buildRequest(body, callFor(false)));
    const received = upstream.requests.at(-1)!;
    expect(received.authFailure).toBeNull();
    expect(received.url).toBe('/');
    expect(received.headers).toMatchObject({
      'x-tc-action': 'ChatCompletions',
      'x-tc-version': '2023-09-01',
      'content-type': 'application/json',
    });
    expect(received.json).toEqual({
      Model: 'hunyuan-lite',
      Stream: false,
      TopP: 0.9,
      Temperature: 0.7,
      Messages: [
        { Role: 'system', Content: 'Be brief.' },
        { Role: 'user', Content: '你好' },
      ],
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(text), 'hunyuan-lite');
    expect(usage).toEqual({ promptTokens: 12, completionTokens: 9, cachedTokens: 0 });
    expect(completion).toMatchObject({
      id: 'chatcmpl-9f6c1a2e-5d3b-4e7a-8c21-0b9e4f7d6a11',
      object: 'chat.completion',
      model: 'hunyuan-lite',
      choices: [{ index: 0, message: { role: 'assistant', content: '你好！我是腾讯混元大模型。' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
    });
  });

  it('streams: Delta.Content → chunks, the last Usage wins, FinishReason closes', async () => {
    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('hunyuan', 'chat-stream.chunks.txt') });
    const { text } = await sendUpstream(
      await converter.buildRequest({ messages: [{ role: 'user', content: 'Hi' }] }, callFor(true, 'AKIDhunyuan|hunyuan-secret')),
    );
    expect(upstream.requests.at(-1)!.authFailure).toBeNull();
    expect(upstream.requests.at(-1)!.json.Stream).toBe(true);
    const transform = converter.createStreamTransform('hunyuan-lite');
    const results = splitNdjson(text).map((event) => transform.onEvent(event));
    const chunks = results.flatMap((result) => result.chunks) as any[];
    expect(chunks[0]).toMatchObject({
      id: 'chatcmpl-3b8d2c70-1f4e-4a5b-9e6d-2c7a8b9f0e12',
      object: 'chat.completion.chunk',
      choices: [{ delta: { role: 'assistant', content: '你好' } }],
    });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('你好，世界！');
    expect(results.map((result) => result.text).join('')).toBe('你好，世界！');
    expect(chunks.at(-2).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 } });
    expect(transform.finish()).toEqual({ chunks: [], text: '', usage: { promptTokens: 6, completionTokens: 4, cachedTokens: 0 } });
  });

  it('throws HTTP-200 error bodies and error frames as UpstreamErrors with mapped statuses', async () => {
    expectUpstreamError(() => converter.parseResponse(JSON.parse(readFixture('hunyuan', 'error-limit.json')), 'hunyuan-lite'), {
      status: 429,
      upstreamCode: 'LimitExceeded',
      message: '超过配额限制',
      retryable: true,
    });
    expectUpstreamError(() => converter.parseResponse(JSON.parse(readFixture('hunyuan', 'error-param.json')), 'hunyuan-lite'), {
      status: 400,
      upstreamCode: 'InvalidParameterValue.Model',
      retryable: false,
    });
    const [frame] = splitNdjson(readFixture('hunyuan', 'stream-error.chunks.txt'));
    expectUpstreamError(() => converter.createStreamTransform('m').onEvent(frame!), {
      status: 500,
      upstreamCode: 'FailedOperation.EngineServerError',
    });

    // A wrong SecretKey: the upstream rejects the signature with HTTP 200, in a stream request too.
    const { text } = await sendUpstream(
      await converter.buildRequest({ messages: [{ role: 'user', content: 'Hi' }] }, callFor(true, 'AKIDhunyuan|wrong-secret')),
    );
    expect(upstream.requests.at(-1)!.authFailure).toBe('AuthFailure.SignatureFailure');
    const transform = converter.createStreamTransform('m');
    expectUpstreamError(() => splitNdjson(text).forEach((event) => transform.onEvent(event)), {
      status: 401,
      upstreamCode: 'AuthFailure.SignatureFailure',
      retryable: true,
    });
    expect(hunyuanAdapter.errors.parse(200, text)).toEqual({
      code: 'AuthFailure.SignatureFailure',
      message: 'The provided credentials could not be validated.',
    });
    expect(hunyuanAdapter.errors.parse(502, '<html>bad gateway</html>')).toEqual({ code: null, message: '<html>bad gateway</html>' });
  });

  it('maps Tencent error codes to statuses', () => {
    expect(
      [
        'AuthFailure.SecretIdNotFound',
        'RequestLimitExceeded.UinLimitExceeded',
        'LimitExceeded',
        'InvalidParameter',
        'MissingParameter',
        'InvalidParameterValue',
        'ResourceInsufficient.ChargeResourceExhaust',
        'FailedOperation.EngineRequestTimeout',
        'ResourceUnavailable.InArrears',
        'Whatever',
      ].map(hunyuanErrorStatus),
    ).toEqual([401, 429, 429, 400, 400, 400, 500, 500, 403, 500]);
  });

  it('embeds with GetEmbedding: Input for one text, InputList for several', async () => {
    const embeddings = hunyuanAdapter.embeddingsConverter;
    upstream.reply(json('embeddings.json'));
    const { text } = await sendUpstream(
      await embeddings.buildRequest({ model: 'hunyuan-embedding', input: ['一', '二'] }, callFor(false, undefined, 'hunyuan-embedding')),
    );
    const received = upstream.requests.at(-1)!;
    expect(received.authFailure).toBeNull();
    expect(received.headers['x-tc-action']).toBe('GetEmbedding');
    expect(received.json).toEqual({ InputList: ['一', '二'] });
    const { response, usage } = embeddings.parseResponse(JSON.parse(text), 'hunyuan-embedding');
    expect(usage).toEqual({ promptTokens: 8, completionTokens: 0, cachedTokens: 0 });
    expect(response).toEqual({
      object: 'list',
      model: 'hunyuan-embedding',
      usage: { prompt_tokens: 8, total_tokens: 8 },
      data: [
        { object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] },
        { object: 'embedding', index: 1, embedding: [-0.011, 0.022, -0.033] },
      ],
    });
    upstream.reply(json('embeddings.json'));
    await sendUpstream(await embeddings.buildRequest({ input: 'one' }, callFor(false)));
    expect(upstream.requests.at(-1)!.json).toEqual({ Input: 'one' });
    expect(() => embeddings.buildRequest({ input: [1, 2, 3] }, callFor(false))).toThrow(/字符串/);
    expectUpstreamError(() => embeddings.parseResponse(JSON.parse(readFixture('hunyuan', 'error-limit.json')), 'x'), { status: 429 });
  });

  it('merges same-role turns, keeps one leading system message and at most 40 messages', () => {
    expect(
      toHunyuanMessages([
        { role: 'user', content: 'a' },
        { role: 'system', content: 's1' },
        { role: 'user', content: 'b' },
        { role: 'developer', content: 's2' },
        { role: 'assistant', content: 'c' },
        { role: 'assistant', content: 'd' },
        { role: 'tool', content: 'e' },
      ]),
    ).toEqual([
      { Role: 'system', Content: 's1\ns2' },
      { Role: 'user', Content: 'a\nb' },
      { Role: 'assistant', Content: 'c\nd' },
      { Role: 'user', Content: 'e' },
    ]);
    const long = Array.from({ length: 50 }, (_, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content: `m${index}` }));
    const kept = toHunyuanMessages([{ role: 'system', content: 'sys' }, ...long, { role: 'user', content: 'last' }]);
    expect(kept).toHaveLength(40);
    expect(kept[0]).toEqual({ Role: 'system', Content: 'sys' });
    expect(kept[1]).toEqual({ Role: 'user', Content: 'm12' });
    expect(kept.at(-1)).toEqual({ Role: 'user', Content: 'last' });
    expect(kept.slice(1).every((message, index) => message.Role === (index % 2 === 0 ? 'user' : 'assistant'))).toBe(true);
    // Cut inside a turn pair: the orphaned assistant reply at the head goes too.
    const cut = toHunyuanMessages([{ role: 'system', content: 'sys' }, ...long]);
    expect(cut).toHaveLength(39);
    expect(cut[1]).toEqual({ Role: 'user', Content: 'm12' });
  });

  it('validates keys, sends the region from `other`, registered as type 23', async () => {
    expect(parseHunyuanKey('1300|AKID|sk')).toEqual({ appId: '1300', secretId: 'AKID', secretKey: 'sk' });
    expect(parseHunyuanKey('AKID|sk')).toEqual({ appId: '', secretId: 'AKID', secretKey: 'sk' });
    expect(validateHunyuanKey('only-one-part')).toMatch(/SecretId\|SecretKey/);
    expect(validateHunyuanKey('a|b|c|d')).not.toBeNull();
    expect(validateHunyuanKey('1300||sk')).not.toBeNull();
    expect(hunyuanAdapter.validateChannel('AKID|sk', '', '')).toBeNull();
    const built = await converter.buildRequest(
      { messages: [] },
      { ...callFor(false), target: makeTarget(upstream.url, 'AKID|sk', ' ap-guangzhou ') },
    );
    expect(built.headers['x-tc-region']).toBe('ap-guangzhou');
    // The region goes out as a header: anything but a region name is refused on save, and left out if stored.
    expect(hunyuanAdapter.validateChannel('AKID|sk', 'na-siliconvalley', '')).toBeNull();
    for (const region of ['ap guangzhou', 'ap-guangzhou\r\nX-Injected: 1', '广州', 'AP-Guangzhou']) {
      expect(hunyuanAdapter.validateChannel('AKID|sk', region, ''), region).toBe('腾讯混元的地域应为 ap-guangzhou 这样的地域名，或留空');
    }
    const stored = await converter.buildRequest(
      { messages: [] },
      { ...callFor(false), target: makeTarget(upstream.url, 'AKID|sk', 'ap-guangzhou\r\nX-Injected: 1') },
    );
    expect(stored.headers).not.toHaveProperty('x-tc-region');
    expect(adapterForType(23)).toBe(hunyuanAdapter);
    expect(hunyuanAdapter.meta).toMatchObject({ type: 23, defaultBaseURL: 'https://hunyuan.tencentcloudapi.com' });
  });
});
