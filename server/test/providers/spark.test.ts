import { createHmac } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { sparkAdapter } from '../../src/relay/providers/spark/index.js';
import { validateSparkKey } from '../../src/relay/providers/spark/key.js';
import { buildSparkRequest } from '../../src/relay/providers/spark/request.js';
import { signedSparkUrl, signSparkRequest } from '../../src/relay/providers/spark/sign.js';
import { chooseSparkVersion, sparkEndpointOf } from '../../src/relay/providers/spark/version.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import { sendUpstream } from '../../src/relay/providers/upstream-request.js';
import { framesOf, startSparkUpstream, type SparkUpstream } from '../helpers/spark-upstream.js';
import { emptyOptions } from './helpers/recorded-upstream.js';
import { readFixture } from './helpers/fixture-upstream.js';

const keys = { appId: 'app123', apiSecret: 'secret-abc', apiKey: 'key-xyz' };
const dispatcher = new Agent();
let upstream: SparkUpstream;
beforeAll(async () => {
  upstream = await startSparkUpstream(keys);
});
afterAll(async () => {
  await upstream.close();
  await dispatcher.close();
});

const callFor = (model: string, other = '', apiVersion?: string, key = `${keys.appId}|${keys.apiSecret}|${keys.apiKey}`): ChatCall => ({
  upstreamModel: model,
  isStream: true,
  options: emptyOptions,
  requestOptions: apiVersion ? { apiVersion } : undefined,
  target: { baseURL: upstream.url, key, headers: {}, other, dispatcher },
});

/** Reads a transport answer through the converter, as the relay does. */
async function converse(call: ChatCall, body: Record<string, unknown>) {
  const response = await sendUpstream(sparkAdapter, buildSparkRequest(body, call), { dispatcher });
  if (response.statusCode !== 200)
    return { status: response.statusCode, text: await response.body.text(), chunks: [] as any[], usage: null };
  const transform = sparkAdapter.chatConverter.createStreamTransform('spark-model');
  const lines = (await response.body.text()).split('\n').filter(Boolean);
  const results = lines.map((data) => transform.onEvent({ event: null, data }));
  const chunks = [...results.flatMap((result) => result.chunks), ...transform.finish().chunks] as any[];
  return { status: 200, text: '', chunks, usage: transform.finish().usage };
}

describe('iFlytek Spark (type 18)', () => {
  it('signs the URL with HMAC-SHA256 over host, date and the request line (checked with node:crypto step by step)', () => {
    // iFlytek's documented scheme; the reference below is computed independently of the adapter.
    const date = 'Mon, 23 Nov 2026 08:00:00 GMT';
    const signed = signSparkRequest('key-xyz', 'secret-abc', 'spark-api.xf-yun.com', '/v3.5/chat', date);
    const stringToSign = 'host: spark-api.xf-yun.com\ndate: Mon, 23 Nov 2026 08:00:00 GMT\nGET /v3.5/chat HTTP/1.1';
    expect(signed.stringToSign).toBe(stringToSign);
    const signature = createHmac('sha256', 'secret-abc').update(stringToSign).digest('base64');
    expect(signed.signature).toBe(signature);
    expect(Buffer.from(signed.authorization, 'base64').toString()).toBe(
      `api_key="key-xyz", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
    );

    const now = Date.parse('2026-11-23T08:00:00Z');
    const url = new URL(
      buildSparkRequest(
        { messages: [] },
        { ...callFor('SparkDesk-v3.5'), target: { ...callFor('x').target, baseURL: 'wss://spark-api.xf-yun.com' } },
        now,
      ).url,
    );
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('wss://spark-api.xf-yun.com/v3.5/chat');
    expect(url.searchParams.get('date')).toBe(date);
    expect(url.searchParams.get('host')).toBe('spark-api.xf-yun.com');
    expect(url.searchParams.get('authorization')).toBe(signed.authorization);
  });

  it("reproduces iFlytek's published authentication example (iat-api.xfyun.cn, Wed, 10 Jul 2019 07:35:43 GMT)", () => {
    // The example URL of iFlytek's WebSocket authentication guide, with its sample APIKey and APISecret.
    const published =
      'YXBpX2tleT0ia2V5eHh4eHh4eHg4ZWUyNzkzNDg1MTlleHh4eHh4eHgiLCBhbGdvcml0aG09ImhtYWMtc2hhMjU2IiwgaGVhZGVycz0iaG9zdCBkYXRlIHJlcXVlc3QtbGluZSIsIHNpZ25hdHVyZT0iSHAzVHk0WmtTQm1MOGpLeU9McFFpdjlTcjVudm1lWUVIN1dzTC9aTzJKZz0i';
    const apiKey = 'keyxxxxxxxx8ee279348519exxxxxxxx';
    const apiSecret = 'secretxxxxxxxx2df7900c09xxxxxxxx';
    const signed = signSparkRequest(apiKey, apiSecret, 'iat-api.xfyun.cn', '/v2/iat', 'Wed, 10 Jul 2019 07:35:43 GMT');
    expect(signed.signature).toBe('Hp3Ty4ZkSBmL8jKyOLpQiv9Sr5nvmeYEH7WsL/ZO2Jg=');
    expect(signed.authorization).toBe(published);
    const url = new URL(signedSparkUrl('wss://iat-api.xfyun.cn', '/v2/iat', apiKey, apiSecret, Date.parse('2019-07-10T07:35:43Z')));
    expect(url.searchParams.get('authorization')).toBe(published);
    expect(url.searchParams.get('date')).toBe('Wed, 10 Jul 2019 07:35:43 GMT');
    expect(url.searchParams.get('host')).toBe('iat-api.xfyun.cn');
  });

  it('chooses the version: client api-version, then the model suffix, then the channel, else v2.1', () => {
    expect(chooseSparkVersion('v4.0', 'SparkDesk-v3.5', 'v1.1')).toBe('v4.0');
    expect(chooseSparkVersion(undefined, 'SparkDesk-v3.5', 'v1.1')).toBe('v3.5');
    expect(chooseSparkVersion(undefined, 'SparkDesk', 'v1.1')).toBe('v1.1');
    expect(chooseSparkVersion('bogus', 'SparkDesk', '')).toBe('v2.1');
    expect(sparkEndpointOf('v1.1')).toEqual({ version: 'v1.1', path: '/v1.1/chat', domain: 'lite' });
    expect(sparkEndpointOf('v4.0')).toEqual({ version: 'v4.0', path: '/v4.0/chat', domain: '4.0Ultra' });
    expect(sparkEndpointOf('pro-128k')).toEqual({ version: 'pro-128k', path: '/chat/pro-128k', domain: 'pro-128k' });
    expect(sparkEndpointOf('v9.9').domain).toBe('generalv9.9');
  });

  it("sends the frame over the signed socket and turns the frames into chunks with the last frame's usage", async () => {
    upstream.reply(framesOf(readFixture('spark', 'chat.frames.ndjson')));
    const body = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: '你好' }] },
      ],
      max_tokens: 100,
      temperature: 0.5,
      user: 'u-1',
    };
    const answer = await converse(callFor('SparkDesk', 'v2.1'), body);
    const call = upstream.calls.at(-1)!;
    expect(call.path).toBe('/v2.1/chat');
    // v2.1 has no system role: a user turn and an assistant "Okay".
    expect(call.frame).toEqual({
      header: { app_id: 'app123', uid: 'u-1' },
      parameter: { chat: { domain: 'generalv2', temperature: 0.5, max_tokens: 100 } },
      payload: {
        message: {
          text: [
            { role: 'user', content: 'Be brief.' },
            { role: 'assistant', content: 'Okay' },
            { role: 'user', content: '你好' },
          ],
        },
      },
    });
    expect(answer.chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '你好！' });
    expect(answer.chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('你好！我是讯飞星火，很高兴为你服务。');
    expect(answer.chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
    expect(answer.usage).toEqual({ promptTokens: 5, completionTokens: 16, cachedTokens: 0 });

    upstream.reply(framesOf(readFixture('spark', 'chat.frames.ndjson')));
    await converse(callFor('SparkDesk-v3.5'), body);
    expect(upstream.calls.at(-1)!.frame.payload.message.text[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(upstream.calls.at(-1)!.frame.parameter.chat.domain).toBe('generalv3.5');
  });

  it('maps error frames to statuses and answers a refused handshake with its 401', async () => {
    upstream.reply(framesOf(readFixture('spark', 'error.frames.ndjson')));
    await expect(converse(callFor('SparkDesk'), { messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 400,
      upstreamCode: '10013',
      message: 'input content audit failed',
    });
    upstream.reply(framesOf(readFixture('spark', 'limit.frames.ndjson')));
    await expect(converse(callFor('SparkDesk'), { messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(UpstreamError);

    const refused = upstream.refused;
    const bad = await converse(callFor('SparkDesk', '', undefined, `${keys.appId}|wrong-secret|${keys.apiKey}`), {
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(upstream.refused).toBe(refused + 1);
    expect(bad.status).toBe(401);
    expect(sparkAdapter.errors.parse(401, bad.text)).toEqual({ message: 'HMAC signature does not match', code: null });
  });

  it('validates the key shape and is registered as type 18', () => {
    expect(validateSparkKey('a|b')).toMatch(/APPID\|APISecret\|APIKey/);
    expect(validateSparkKey('a|b|c')).toBeNull();
    expect(adapterForType(18)).toBe(sparkAdapter);
  });
});
