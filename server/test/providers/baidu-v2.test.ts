import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyQianfanSearch, baiduV2Adapter } from '../../src/relay/providers/baidu-v2/index.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import { openAiWireRequest } from '../../src/relay/providers/upstream-request.js';
import {
  makeTarget,
  readFixture,
  sendUpstream,
  splitSse,
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

const key = 'bce-v3/ALTAK-abc/def123|app-77';

describe('Baidu Qianfan v2 adapter (type 46)', () => {
  it('posts to {base}/v2/chat/completions with the Bearer token and the appid header, and reads OpenAI usage', async () => {
    upstream.reply({ body: readFixture('baidu-v2', 'chat.json') });
    const body: Record<string, unknown> = { model: 'ernie-3.5-8k-search', messages: [{ role: 'user', content: '北京天气' }] };
    baiduV2Adapter.chat.prepareBody(body);
    const { text } = await sendUpstream(
      openAiWireRequest(baiduV2Adapter, 'chat', body, makeTarget(`${upstream.baseURL}/`, key), 'ernie-3.5-8k'),
    );
    const sent = upstream.received.at(-1)!;
    expect(sent.url).toBe('/v2/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer bce-v3/ALTAK-abc/def123');
    expect(sent.headers.appid).toBe('app-77');
    expect(sent.json).toEqual({
      model: 'ernie-3.5-8k',
      messages: [{ role: 'user', content: '北京天气' }],
      web_search: { enable: true, enable_citation: true, enable_trace: true },
    });
    expect(baiduV2Adapter.chat.readUsage(JSON.parse(text))).toEqual({ promptTokens: 8, completionTokens: 6, cachedTokens: 0 });
  });

  it('sends a plain key as Bearer only, and keeps models without the -search suffix as they are', async () => {
    upstream.reply({ body: readFixture('baidu-v2', 'chat.json') });
    const body: Record<string, unknown> = { model: 'ernie-4.0-turbo-8k', messages: [] };
    baiduV2Adapter.chat.prepareBody(body);
    expect(body).toEqual({ model: 'ernie-4.0-turbo-8k', messages: [] });
    await sendUpstream(
      openAiWireRequest(baiduV2Adapter, 'chat', body, makeTarget(upstream.baseURL, 'bce-v3/ALTAK-plain/xyz'), 'ernie-4.0-turbo-8k'),
    );
    const sent = upstream.received.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer bce-v3/ALTAK-plain/xyz');
    expect(sent.headers.appid).toBeUndefined();
    const bare: Record<string, unknown> = { model: '-search' };
    applyQianfanSearch(bare);
    expect(bare).toEqual({ model: '-search' });
  });

  it('builds the /v2 paths of embeddings, images and rerank (also from a base that ends in /v2)', () => {
    const target = makeTarget('https://qianfan.baidubce.com/v2', key);
    expect(baiduV2Adapter.api.url('embeddings', target, 'embedding-v1')).toBe('https://qianfan.baidubce.com/v2/embeddings');
    expect(baiduV2Adapter.api.url('images', makeTarget('https://qianfan.baidubce.com', key), 'irag-1.0')).toBe(
      'https://qianfan.baidubce.com/v2/images/generations',
    );
    expect(baiduV2Adapter.api.url('rerank', target, 'bce-reranker-base')).toBe('https://qianfan.baidubce.com/v2/rerank');
    expect([...baiduV2Adapter.endpoints]).toEqual(['chat', 'embeddings', 'images', 'rerank']);
  });

  it('asks for stream usage and reads it from the final chunk', () => {
    expect(baiduV2Adapter.chatStream.supportsStreamUsage).toBe(true);
    const transform = baiduV2Adapter.chatStream.createTransform();
    const verdicts = splitSse(readFixture('baidu-v2', 'chat-stream.chunks.txt'))
      .filter((event) => event.data !== '[DONE]')
      .map((event) => transform.onChunk(JSON.parse(event.data)));
    expect(verdicts.map((verdict) => verdict.text).join('')).toBe('你好，千帆');
    expect(verdicts.at(-1)).toMatchObject({ isUsageOnly: true, usage: { promptTokens: 3, completionTokens: 4, cachedTokens: 0 } });
  });

  it('parses OpenAI-style errors and is registered as type 46', () => {
    expect(baiduV2Adapter.errors.parse(401, readFixture('baidu-v2', 'error-auth.json'))).toMatchObject({
      message: 'IAM Certification failed',
      code: 'invalid_iam_token',
    });
    expect(adapterForType(46)).toBe(baiduV2Adapter);
    expect(baiduV2Adapter.meta).toMatchObject({ type: 46, defaultBaseURL: 'https://qianfan.baidubce.com' });
  });
});
