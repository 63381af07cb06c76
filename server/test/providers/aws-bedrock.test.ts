import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { awsBedrockAdapter } from '../../src/relay/providers/aws-bedrock/index.js';
import { bedrockModelId } from '../../src/relay/providers/aws-bedrock/model-ids.js';
import { signRequest } from '../../src/relay/providers/aws-bedrock/sigv4.js';
import { createBedrockEventDecoder } from '../../src/relay/providers/aws-bedrock/event-stream.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall, ConvertedEvents } from '../../src/relay/providers/types.js';
import { claudeTestOptions } from './helpers/adapter-options.js';
import { bedrockChunkFrame, bedrockExceptionFrame } from './helpers/aws-event-stream-encoder.js';
import { readFixture, sendUpstream, startFixtureUpstream, type FixtureUpstream } from './helpers/fixture-upstream.js';

let upstream: FixtureUpstream;
const dispatcher = new Agent();
beforeAll(async () => {
  upstream = await startFixtureUpstream();
});
afterAll(async () => {
  await upstream.close();
  await dispatcher.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const secret = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const call = (model: string, key: string, isStream = false, headers: Record<string, string> = {}): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: { baseURL: upstream.url, key, headers, other: '', dispatcher },
  options: claudeTestOptions(),
});
const converter = awsBedrockAdapter.chatConverter!;

describe('AWS Bedrock: signed InvokeModel requests', () => {
  it('signs with AK|SK|Region, sends the Bedrock body, and the mock sees a signature that verifies', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2024-11-05T08:30:00Z'));
    const built = await converter.buildRequest(
      {
        model: 'claude-3-5-sonnet-20241022',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
        max_tokens: 64,
        stream: true,
      },
      call('claude-3-5-sonnet-20241022', `AKIDEXAMPLE|${secret}|us-west-2`, false, {
        'anthropic-beta': 'token-efficient-tools-2025-02-19',
      }),
    );
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('aws-bedrock', 'invoke-response.json') });
    const response = await sendUpstream(built);
    const sent = upstream.requests.at(-1)!;

    expect(sent.url).toBe('/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke');
    expect(sent.json).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.' }],
      anthropic_beta: ['token-efficient-tools-2025-02-19'],
    });
    expect(sent.headers['x-amz-date']).toBe('20241105T083000Z');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers.accept).toBe('application/json');
    const authorization = String(sent.headers.authorization);
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20241105\/us-west-2\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    // Re-sign what the mock received (its host, the exact body bytes): the signatures must agree.
    const check = signRequest({
      method: sent.method,
      url: `${upstream.url}${sent.url}`,
      headers: {
        host: String(sent.headers.host),
        'content-type': String(sent.headers['content-type']),
        accept: String(sent.headers.accept),
      },
      body: sent.rawBody,
      region: 'us-west-2',
      service: 'bedrock',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: secret,
      now: new Date('2024-11-05T08:30:00Z'),
    });
    expect(authorization).toBe(check.authorization);

    const { completion, usage } = converter.parseResponse(JSON.parse(response.text), 'claude-3-5-sonnet-20241022');
    expect(completion).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'Bonjour! How can I help?' }, finish_reason: 'stop' }],
    });
    expect(usage).toEqual({ promptTokens: 18, completionTokens: 9, cachedTokens: 0, cacheCreationTokens: 0 });
  });

  it('uses Bearer for APIKey|Region and the stream URL with the event-stream accept header', async () => {
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'Hi' }] },
      call('claude-3-haiku-20240307', 'bedrock-api-key-123|eu-central-1', true),
    );
    expect(built.url).toBe(`${upstream.url}/model/eu.anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream`);
    expect(built.headers).toEqual({
      authorization: 'Bearer bedrock-api-key-123',
      'content-type': 'application/json',
      accept: 'application/vnd.amazon.eventstream',
    });
    expect(JSON.parse(built.body as string)).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 4096,
    });
    const region = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'Hi' }] },
      {
        ...call('claude-3-haiku-20240307', 'k|ap-northeast-1'),
        target: { baseURL: '', key: 'k|ap-northeast-1', headers: {}, other: '', dispatcher },
      },
    );
    expect(region.url).toBe(
      'https://bedrock-runtime.ap-northeast-1.amazonaws.com/model/apac.anthropic.claude-3-haiku-20240307-v1%3A0/invoke',
    );
  });

  it('maps model names to Bedrock ids with cross-region prefixes only where a profile exists', () => {
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'us-east-1')).toBe('us.anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'eu-west-1')).toBe('anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-opus-20240229', 'ap-southeast-2')).toBe('anthropic.claude-3-opus-20240229-v1:0');
    expect(bedrockModelId('claude-sonnet-4-20250514', 'eu-west-3')).toBe('eu.anthropic.claude-sonnet-4-20250514-v1:0');
    expect(bedrockModelId('claude-2.1', 'us-east-1')).toBe('anthropic.claude-v2:1');
    expect(bedrockModelId('claude-3-7-sonnet-20250219', 'sa-east-1')).toBe('anthropic.claude-3-7-sonnet-20250219-v1:0');
    expect(bedrockModelId('us.anthropic.claude-opus-4-1-20250805-v1:0', 'eu-west-1')).toBe('us.anthropic.claude-opus-4-1-20250805-v1:0');
    expect(bedrockModelId('claude-future-9', 'us-east-1')).toBe('anthropic.claude-future-9-v1:0');
  });

  it('strips model and stream from a native Messages body', async () => {
    const built = await awsBedrockAdapter.native!.buildRequest(
      { model: 'x', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      call('claude-3-7-sonnet-20250219', 'k|us-east-1', true),
    );
    expect(built.url).toBe(`${upstream.url}/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke-with-response-stream`);
    expect(JSON.parse(built.body as string)).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });
});

describe('AWS Bedrock: binary stream and errors', () => {
  const events = JSON.parse(readFixture('aws-bedrock', 'stream-events.json')) as unknown[];

  async function streamFromMock(frames: Buffer) {
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'Hi' }] },
      call('claude-3-5-sonnet-20241022', `AKIDEXAMPLE|${secret}|us-east-1`, true),
    );
    upstream.reply({ status: 200, contentType: 'application/vnd.amazon.eventstream', body: frames });
    const response = await sendUpstream(built);
    expect(upstream.requests.at(-1)!.url).toBe('/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke-with-response-stream');
    const decoder = createBedrockEventDecoder();
    // Feed the body in odd-sized pieces, as a socket would.
    const decoded = [];
    for (let at = 0; at < response.bytes.length; at += 29) decoded.push(...decoder.push(response.bytes.subarray(at, at + 29)));
    decoder.finish();
    return decoded;
  }

  it('decodes the event stream and converts it to OpenAI chunks with usage', async () => {
    const decoded = await streamFromMock(Buffer.concat(events.map((event) => bedrockChunkFrame(event))));
    expect(decoded).toHaveLength(7);
    expect(decoded.every((event) => event.event === 'chunk')).toBe(true);
    const transform = converter.createStreamTransform('claude-3-5-sonnet');
    const results: ConvertedEvents[] = decoded.map((event) => transform.onEvent(event));
    results.push(transform.finish());
    const chunks = results.flatMap((r) => r.chunks) as any[];
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Bonjour from Bedrock.');
    expect(chunks.at(-1).choices[0].finish_reason).toBe('length');
    expect(results.at(-1)!.usage).toEqual({ promptTokens: 89, completionTokens: 11, cachedTokens: 64, cacheCreationTokens: 0 });
    const reader = awsBedrockAdapter.native!.createUsageReader();
    expect(decoded.map((event) => reader.onEvent(event)).at(-1)!.usage).toEqual({
      promptTokens: 89,
      completionTokens: 11,
      cachedTokens: 64,
      cacheCreationTokens: 0,
    });
  });

  it('falls back to amazon-bedrock-invocationMetrics when events carry no usage', () => {
    const transform = converter.createStreamTransform('m');
    transform.onEvent({ event: 'chunk', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}' });
    const last = transform.onEvent({ event: 'chunk', data: JSON.stringify(events.at(-1)) });
    expect(last.usage).toEqual({ promptTokens: 89, completionTokens: 11, cachedTokens: 64, cacheCreationTokens: 0 });
  });

  it('throws a retryable 429 on a throttlingException frame mid-stream', async () => {
    const decoded = await streamFromMock(
      Buffer.concat([
        bedrockChunkFrame(events[0]),
        bedrockExceptionFrame('throttlingException', 'Too many tokens, please wait before trying again.'),
      ]),
    );
    const transform = converter.createStreamTransform('m');
    transform.onEvent(decoded[0]!);
    expect(() => transform.onEvent(decoded[1]!)).toThrow(UpstreamError);
    try {
      transform.onEvent(decoded[1]!);
    } catch (error) {
      expect(error).toMatchObject({
        upstreamStatus: 429,
        retryable: true,
        upstreamCode: 'throttlingException',
        message: 'Too many tokens, please wait before trying again.',
      });
    }
  });

  it('parses non-stream error bodies by status', async () => {
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'Hi' }] },
      call('claude-3-5-sonnet-20241022', 'k|us-east-1'),
    );
    upstream.reply({
      status: 429,
      contentType: 'application/json',
      body: readFixture('aws-bedrock', 'error-throttling.json'),
      headers: { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
    });
    const throttled = await sendUpstream(built);
    expect(awsBedrockAdapter.errors.parse(throttled.status, throttled.text)).toEqual({
      message: 'Too many requests, please wait before trying again.',
      code: 'ThrottlingException',
    });
    upstream.reply({ status: 403, contentType: 'application/json', body: readFixture('aws-bedrock', 'error-access-denied.json') });
    const denied = await sendUpstream(built);
    expect(awsBedrockAdapter.errors.parse(denied.status, denied.text)).toEqual({
      message: "You don't have access to the model with the specified model ID.",
      code: 'AccessDeniedException',
    });
    expect(
      awsBedrockAdapter.errors.parse(400, '{"__type":"com.amazon.coral.validate#ValidationException","message":"Malformed input request"}'),
    ).toEqual({ message: 'Malformed input request', code: 'ValidationException' });
    expect(adapterForType(33)).toBe(awsBedrockAdapter);
  });
});
