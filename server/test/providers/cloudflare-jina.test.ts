import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudflareAdapter, fetchCloudflareModels, validateCloudflareChannel } from '../../src/relay/providers/cloudflare/index.js';
import { jinaAdapter, prepareJinaRerankBody, validateJinaChannel } from '../../src/relay/providers/jina/index.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import { makeTarget, readFixture, sendUpstream, startRecordedUpstream, type RecordedUpstream } from './helpers/recorded-upstream.js';

let upstream: RecordedUpstream;
beforeAll(async () => {
  upstream = await startRecordedUpstream();
});
afterAll(async () => {
  await upstream.close();
});

const account = '0123456789abcdef0123456789abcdef';

describe('Cloudflare Workers AI (type 39)', () => {
  it('puts the account id from other into the OpenAI-compatible path and sends Bearer', async () => {
    upstream.reply({ body: readFixture('cloudflare', 'chat.json') });
    const target = makeTarget(upstream.baseURL, 'cf-token', account);
    const body = {
      model: '@cf/meta/llama-3.1-8b-instruct',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    };
    const { text } = await sendUpstream({
      url: cloudflareAdapter.api.url('chat', target, body.model),
      headers: cloudflareAdapter.api.headers(target),
      body,
    });
    const received = upstream.received.at(-1)!;
    expect(received.url).toBe(`/client/v4/accounts/${account}/ai/v1/chat/completions`);
    expect(received.headers.authorization).toBe('Bearer cf-token');
    expect(received.json).toEqual(body);
    expect(cloudflareAdapter.chat.readUsage(JSON.parse(text))).toEqual({ promptTokens: 15, completionTokens: 5, cachedTokens: 0 });
    expect(cloudflareAdapter.api.url('embeddings', target, '@cf/baai/bge-m3')).toBe(
      `${upstream.baseURL}/client/v4/accounts/${account}/ai/v1/embeddings`,
    );
    expect(cloudflareAdapter.api.url('chat', makeTarget('https://gateway.ai.cloudflare.com/v1/acc/gw/workers-ai', 'k', account), 'm')).toBe(
      'https://gateway.ai.cloudflare.com/v1/acc/gw/workers-ai/v1/chat/completions',
    );
    expect(cloudflareAdapter.chatStream.supportsStreamUsage).toBe(true);
  });

  it('lists models from ai/models/search and parses Cloudflare errors', async () => {
    upstream.reply({ body: readFixture('cloudflare', 'models.json') });
    expect(await fetchCloudflareModels(makeTarget(upstream.baseURL, 'cf-token', account))).toEqual([
      '@cf/meta/llama-3.1-8b-instruct',
      '@cf/baai/bge-m3',
    ]);
    expect(upstream.received.at(-1)).toMatchObject({ method: 'GET', url: `/client/v4/accounts/${account}/ai/models/search` });
    expect(cloudflareAdapter.errors.parse(400, readFixture('cloudflare', 'error.json'))).toEqual({
      message: expect.stringContaining('Could not route'),
      code: '7003',
    });
  });

  it('requires the account id in other; registered as type 39', () => {
    expect(validateCloudflareChannel('t', '')).toMatch(/Account ID/);
    expect(validateCloudflareChannel('t', 'nothex')).toMatch(/32/);
    expect(validateCloudflareChannel('t', account)).toBeNull();
    expect(adapterForType(39)).toBe(cloudflareAdapter);
    expect(cloudflareAdapter.meta.extraFields).toEqual([expect.objectContaining({ name: 'other', required: true })]);
  });
});

describe('Jina (type 38)', () => {
  it('sends embeddings to /v1/embeddings and reads usage.total_tokens', async () => {
    upstream.reply({ body: readFixture('jina', 'embeddings.json') });
    const target = makeTarget(upstream.baseURL, 'jina_abc');
    const body = { model: 'jina-embeddings-v3', input: ['hello'], task: 'retrieval.query' };
    const { text } = await sendUpstream({
      url: jinaAdapter.api.url('embeddings', target, body.model),
      headers: jinaAdapter.api.headers(target),
      body,
    });
    expect(upstream.received.at(-1)).toMatchObject({ url: '/v1/embeddings', json: body, headers: { authorization: 'Bearer jina_abc' } });
    expect(jinaAdapter.embeddings.readUsage(JSON.parse(text))).toEqual({ promptTokens: 9, completionTokens: 0, cachedTokens: 0 });
  });

  it('reranks through /v1/rerank with relevance scores and token usage', async () => {
    upstream.reply({ body: readFixture('jina', 'rerank.json') });
    const target = makeTarget(upstream.baseURL, 'jina_abc');
    const body = prepareJinaRerankBody(
      {
        model: 'alias',
        query: 'skincare',
        documents: [{ text: 'Hair care' }, 'Organic skincare'],
        top_n: 2,
        return_documents: true,
        extra: 1,
      },
      'jina-reranker-v2-base-multilingual',
    );
    expect(body).toEqual({
      model: 'jina-reranker-v2-base-multilingual',
      query: 'skincare',
      documents: ['Hair care', 'Organic skincare'],
      top_n: 2,
      return_documents: true,
    });
    const { text } = await sendUpstream({
      url: jinaAdapter.api.url('rerank', target, 'm'),
      headers: jinaAdapter.api.headers(target),
      body,
    });
    expect(upstream.received.at(-1)).toMatchObject({ url: '/v1/rerank', json: body });
    const parsed = JSON.parse(text);
    expect(parsed.results.map((result: any) => [result.index, result.relevance_score])).toEqual([
      [1, 0.86],
      [0, 0.21],
    ]);
    expect(jinaAdapter.embeddings.readUsage(parsed)).toEqual({ promptTokens: 42, completionTokens: 0, cachedTokens: 0 });
  });

  it('validates jina_ keys; registered as type 38 with embeddings and rerank only', () => {
    expect(validateJinaChannel('')).toMatch(/API Key/);
    expect(validateJinaChannel('sk-1')).toMatch(/jina_/);
    expect(validateJinaChannel('jina_1')).toBeNull();
    expect(adapterForType(38)).toBe(jinaAdapter);
    expect([...jinaAdapter.endpoints]).toEqual(['embeddings', 'rerank']);
  });
});
