import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  azureAdapter,
  buildAzureRealtimeUrl,
  buildAzureResponsesUrl,
  validateAzureChannel,
} from '../../src/relay/providers/azure/index.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import {
  makeTarget,
  splitSse,
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

describe('Azure OpenAI adapter (type 3)', () => {
  it('builds deployment URLs with dots removed, api-version from other or the default', () => {
    const target = makeTarget('https://res.openai.azure.com/', 'k', '2024-10-21');
    expect(azureAdapter.api.url('chat', target, 'gpt-3.5-turbo')).toBe(
      'https://res.openai.azure.com/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-10-21',
    );
    const plain = makeTarget('https://res.openai.azure.com', 'k');
    expect(azureAdapter.api.url('embeddings', plain, 'text-embedding-3-small')).toBe(
      'https://res.openai.azure.com/openai/deployments/text-embedding-3-small/embeddings?api-version=2025-04-01-preview',
    );
    expect(azureAdapter.api.url('images', plain, 'dall-e-3')).toContain('/openai/deployments/dall-e-3/images/generations?');
    expect(azureAdapter.api.url('transcriptions', plain, 'whisper')).toContain('/deployments/whisper/audio/transcriptions?');
    expect(azureAdapter.api.url('completions', plain, 'gpt-35-turbo-instruct')).toContain(
      '/deployments/gpt-35-turbo-instruct/completions?',
    );
    expect(() => azureAdapter.api.url('rerank', plain, 'x')).toThrow(/rerank/);
  });

  it('drops /openai/deployments behind a Cloudflare AI Gateway base', () => {
    const target = makeTarget('https://gateway.ai.cloudflare.com/v1/acct/gw/azure-openai/res', 'k', '2024-10-21');
    expect(azureAdapter.api.url('chat', target, 'gpt-4o')).toBe(
      'https://gateway.ai.cloudflare.com/v1/acct/gw/azure-openai/res/gpt-4o/chat/completions?api-version=2024-10-21',
    );
  });

  it('builds realtime and Responses URLs', () => {
    const target = makeTarget('https://res.openai.azure.com', 'k', '2025-04-01-preview');
    expect(buildAzureRealtimeUrl(target, 'gpt-4o-realtime-preview')).toBe(
      'wss://res.openai.azure.com/openai/realtime?api-version=2025-04-01-preview&deployment=gpt-4o-realtime-preview',
    );
    expect(buildAzureResponsesUrl(target)).toBe('https://res.openai.azure.com/openai/v1/responses?api-version=preview');
    expect(buildAzureResponsesUrl(makeTarget('https://x.cognitiveservices.azure.com', 'k', '2025-03-01-preview'))).toBe(
      'https://x.cognitiveservices.azure.com/openai/responses?api-version=2025-03-01-preview',
    );
  });

  it('sends api-key (not Bearer) and reads OpenAI usage from the answer', async () => {
    upstream.reply({ body: readFixture('azure', 'chat.json') });
    const target = makeTarget(upstream.baseURL, 'azure-secret', '2024-10-21', { 'x-ms-client-request-id': 'r1' });
    const body = { model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 };
    azureAdapter.chat.prepareBody(body);
    const { status, text } = await sendUpstream({
      url: azureAdapter.api.url('chat', target, body.model),
      headers: azureAdapter.api.headers(target),
      body,
    });
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe('/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-10-21');
    expect(received.headers['api-key']).toBe('azure-secret');
    expect(received.headers.authorization).toBeUndefined();
    expect(received.headers['x-ms-client-request-id']).toBe('r1');
    expect(received.json).toEqual(body);
    expect(status).toBe(200);
    expect(azureAdapter.chat.readUsage(JSON.parse(text))).toEqual({ promptTokens: 12, completionTokens: 4, cachedTokens: 2 });
  });

  it('tolerates content-filter chunks with empty choices and reads stream usage', () => {
    expect(azureAdapter.chatStream.supportsStreamUsage).toBe(true);
    const transform = azureAdapter.chatStream.createTransform();
    const verdicts = splitSse(readFixture('azure', 'chat-stream.chunks.txt'))
      .filter((event) => event.data !== '[DONE]')
      .map((event) => transform.onChunk(JSON.parse(event.data)));
    expect(verdicts.map((verdict) => verdict.text).join('')).toBe('Hi there');
    expect(verdicts[0]).toMatchObject({ usage: null, isUsageOnly: false });
    expect(verdicts.at(-1)).toMatchObject({ usage: { promptTokens: 9, completionTokens: 2, cachedTokens: 0 }, isUsageOnly: true });
  });

  it('parses content-filter errors', async () => {
    upstream.reply({ status: 400, body: readFixture('azure', 'error-content-filter.json') });
    const target = makeTarget(upstream.baseURL, 'k');
    const { status, text } = await sendUpstream({
      url: azureAdapter.api.url('chat', target, 'gpt-4o'),
      headers: azureAdapter.api.headers(target),
      body: {},
    });
    expect(status).toBe(400);
    expect(azureAdapter.errors.parse(status, text)).toEqual({
      message: expect.stringContaining('content management policy'),
      code: 'content_filter',
    });
  });

  it('exposes metadata and validation, registered as type 3', () => {
    expect(adapterForType(3)).toBe(azureAdapter);
    expect(azureAdapter.meta).toMatchObject({ type: 3, displayName: 'Azure OpenAI' });
    expect(azureAdapter.meta.extraFields.map((field) => field.name)).toEqual(['base_url', 'other']);
    expect(validateAzureChannel('', '', 'https://x')).toMatch(/API Key/);
    expect(validateAzureChannel('k', '', '')).toMatch(/资源地址/);
    expect(validateAzureChannel('k', '', 'https://x.openai.azure.com')).toBeNull();
  });
});
