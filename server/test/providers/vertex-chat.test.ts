import { generateKeyPairSync } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RelayError } from '../../src/relay/errors.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ChatCall } from '../../src/relay/providers/types.js';
import { regionFor } from '../../src/relay/providers/vertex/api.js';
import { vertexAdapter } from '../../src/relay/providers/vertex/index.js';
import { vertexTokenCache } from '../../src/relay/providers/vertex/token.js';
import { geminiTestOptions } from './helpers/gemini-options.js';
import { readFixture, sendUpstream, startFixtureUpstream, type FixtureUpstream } from './helpers/fixture-upstream.js';
import { splitSseEvents } from './helpers/sse-events.js';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

let upstream: FixtureUpstream;
const dispatcher = new Agent();
beforeAll(async () => {
  upstream = await startFixtureUpstream();
});
afterAll(async () => {
  await upstream.close();
  await dispatcher.close();
});
beforeEach(() => vertexTokenCache.clear());

const serviceAccountKey = () =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'demo-project',
    private_key_id: 'kid-1',
    private_key: privateKey,
    client_email: 'relay@demo-project.iam.gserviceaccount.com',
    token_uri: `${upstream.url}/token`,
  });
const call = (model: string, isStream: boolean, other: string, key = serviceAccountKey(), baseURL = upstream.url): ChatCall => ({
  upstreamModel: model,
  isStream,
  target: { baseURL, key, headers: {}, other, dispatcher },
  options: geminiTestOptions(),
});
const converter = vertexAdapter.chatConverter!;
const tokenReply = () => upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('vertex', 'token.json') });

describe('Vertex AI adapter: Gemini models', () => {
  it('gets a token, then calls publishers/google/models/{model}:generateContent in the project and region', async () => {
    tokenReply();
    const built = await converter.buildRequest(
      {
        messages: [
          { role: 'system', content: 'Réponds en français.' },
          { role: 'user', content: 'Hello' },
        ],
        temperature: 0.2,
      },
      call('gemini-2.5-flash', false, 'europe-west1'),
    );
    expect(upstream.requests.at(-1)!.url).toBe('/token');
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('vertex', 'gemini-generate.json') });
    const answer = await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe('/v1/projects/demo-project/locations/europe-west1/publishers/google/models/gemini-2.5-flash:generateContent');
    expect(received.headers.authorization).toBe('Bearer ya29.c.vertex-test-token-1');
    expect(received.headers['x-goog-api-key']).toBeUndefined();
    expect(received.json).toMatchObject({
      systemInstruction: { parts: [{ text: 'Réponds en français.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
      generationConfig: { temperature: 0.2 },
    });
    const { completion, usage } = converter.parseResponse(JSON.parse(answer.text), 'gemini-2.5-flash');
    expect((completion.choices as any[])[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Bonjour !' },
      finish_reason: 'stop',
    });
    expect(usage).toEqual({ promptTokens: 6, completionTokens: 3, cachedTokens: 0 });
    expect(vertexAdapter.native!.accepts!('gemini-2.5-flash')).toBe(true);
  });

  it('picks the region from `other` (plain, per-model JSON, default us-central1, global) and the host from it', async () => {
    expect(regionFor('', 'gemini-2.5-pro')).toBe('us-central1');
    expect(regionFor('{"default":"asia-east1","claude-sonnet-4@20250514":"us-east5"}', 'claude-sonnet-4@20250514')).toBe('us-east5');
    expect(regionFor('{"default":"asia-east1"}', 'gemini-2.5-pro')).toBe('asia-east1');
    tokenReply();
    const regional = await converter.buildRequest({ messages: [] }, call('gemini-2.5-pro', true, '', serviceAccountKey(), ''));
    expect(regional.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/demo-project/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
    const global = await converter.buildRequest({ messages: [] }, call('gemini-2.5-pro', false, 'global', serviceAccountKey(), ''));
    expect(global.url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/demo-project/locations/global/publishers/google/models/gemini-2.5-pro:generateContent',
    );
    expect(upstream.requests.filter((request) => request.url === '/token').length).toBeGreaterThan(0);
  });

  it('uses an API key (express mode) with x-goog-api-key and no project path', async () => {
    const built = await converter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }] },
      call('gemini-2.5-flash', true, 'global', 'AQ.vertex-key'),
    );
    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe('/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(received.headers['x-goog-api-key']).toBe('AQ.vertex-key');
    expect(received.headers.authorization).toBeUndefined();
    const hosted = await converter.buildRequest({ messages: [] }, call('gemini-2.5-flash', false, '', 'AQ.vertex-key', ''));
    expect(hosted.url).toBe('https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:generateContent');
    const regional = await converter.buildRequest({ messages: [] }, call('gemini-2.5-flash', false, 'europe-west4', 'AQ.vertex-key', ''));
    expect(regional.url).toBe(
      'https://europe-west4-aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    await expect(
      converter.buildRequest({ messages: [] }, call('claude-sonnet-4@20250514', false, '', 'AQ.vertex-key')),
    ).rejects.toBeInstanceOf(RelayError);
  });

  it('passes a native Gemini body through on Gemini models only', async () => {
    tokenReply();
    const native = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    const built = await vertexAdapter.native!.buildRequest(native, call('gemini-2.5-flash', false, 'us-east1'));
    expect(built.url).toBe(
      `${upstream.url}/v1/projects/demo-project/locations/us-east1/publishers/google/models/gemini-2.5-flash:generateContent`,
    );
    expect(built.body).toBe(native);
    expect(vertexAdapter.native!.accepts!('claude-sonnet-4@20250514')).toBe(false);
  });
});

describe('Vertex AI adapter: Claude models', () => {
  it('sends an Anthropic body without model, with anthropic_version vertex-2023-10-16, to :rawPredict', async () => {
    tokenReply();
    const built = await converter.buildRequest(
      {
        model: 'alias',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
        max_tokens: 300,
      },
      call('claude-sonnet-4@20250514', false, 'us-east5'),
    );
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('vertex', 'claude-message.json') });
    const answer = await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe(
      '/v1/projects/demo-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
    );
    expect(received.headers.authorization).toBe('Bearer ya29.c.vertex-test-token-1');
    expect(received.json.model).toBeUndefined();
    expect(received.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 300, messages: [{ role: 'user' }] });
    expect(JSON.stringify(received.json.system)).toContain('Be brief.');
    const { completion, usage } = converter.parseResponse(JSON.parse(answer.text), 'claude-sonnet-4@20250514');
    expect((completion.choices as any[])[0]).toMatchObject({
      message: { role: 'assistant', content: 'Hello from Vertex.' },
      finish_reason: 'stop',
    });
    expect(usage).toMatchObject({ promptTokens: 112, completionTokens: 6, cachedTokens: 100 });
  });

  it('streams via :streamRawPredict and converts Claude events with the Anthropic transform', async () => {
    tokenReply();
    const built = await converter.buildRequest({ messages: [{ role: 'user', content: 'Hi' }] }, call('claude-sonnet-4@20250514', true, ''));
    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('vertex', 'claude-stream.chunks.txt') });
    const answer = await sendUpstream(built);
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe(
      '/v1/projects/demo-project/locations/us-central1/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict',
    );
    expect(received.json).toMatchObject({ stream: true, anthropic_version: 'vertex-2023-10-16' });
    const transform = converter.createStreamTransform('claude-sonnet-4@20250514');
    const converted = splitSseEvents(answer.text).map((event) => transform.onEvent(event));
    converted.push(transform.finish());
    const chunks = converted.flatMap((item) => item.chunks) as any[];
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('Hi there.');
    expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
    expect(converted.at(-1)!.usage).toMatchObject({ promptTokens: 20, completionTokens: 4, cachedTokens: 0 });
  });

  it('reads both error envelopes and is registered as type 41', () => {
    expect(vertexAdapter.errors.parse(403, readFixture('vertex', 'error-permission.json'))).toEqual({
      message: "Permission 'aiplatform.endpoints.predict' denied on resource.",
      code: 'PERMISSION_DENIED',
    });
    expect(vertexAdapter.errors.parse(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual({
      message: 'Overloaded',
      code: 'overloaded_error',
    });
    expect(adapterForType(41)).toBe(vertexAdapter);
    expect(vertexAdapter.meta).toMatchObject({ type: 41, displayName: 'Google Vertex AI' });
  });
});
