import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/lib/session.js';
import { baiduTokenCache } from '../../src/relay/providers/baidu/token.js';
import type { ApiClient } from '../helpers/api-client.js';
import { baiduGoodKey, qianfanGoodToken, startBaiduUpstream, type BaiduUpstream } from '../helpers/baidu-upstream.js';
import { createRelayChannel, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, collect, createSdkCaller, quotaOfLog } from './sdk-setup.js';

const goodKey = `${baiduGoodKey.apiKey}|${baiduGoodKey.secretKey}`;
const chatPath = '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions';

/** The newest log is billed by the quota formula, and the channel's counter is the sum of its logs. */
function expectBilledExactly(state: Awaited<ReturnType<typeof billedState>>) {
  const log = state.logs[0]!;
  expect(log.quota).toBeGreaterThan(0);
  expect(log.quota).toBe(quotaOfLog(log, log.other));
  expect(state.channelUsed).toBe(state.logs.reduce((sum, row) => sum + row.quota, 0));
}

describe('openai client → ModelGate → Baidu ERNIE (type 15) and Qianfan v2 (type 46)', () => {
  let server: TestServer;
  let upstream: BaiduUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};
  const ask = (model: string) => ({
    model,
    messages: [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hello' },
    ],
  });
  const tokenRequests = () => upstream.requests.filter((request) => request.url.startsWith('/oauth/2.0/token'));

  beforeAll(async () => {
    baiduTokenCache.clear();
    server = await startTestServer();
    upstream = await startBaiduUpstream();
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    const ratios = { 'ERNIE-3.5-8K': 0.6, 'bge-large-zh': 0.1, 'ernie-4.0-turbo-8k': 1.5 };
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), ...ratios }),
    );
    caller = await createSdkCaller(server.ctx);
    channels.ernie = await createRelayChannel(server.ctx, {
      type: 15,
      key: goodKey,
      baseURL: upstream.url,
      models: ['ERNIE-3.5-8K', 'bge-large-zh'],
    });
    channels.qianfan = await createRelayChannel(server.ctx, {
      type: 46,
      key: `${qianfanGoodToken}|app-e2e`,
      baseURL: upstream.url,
      models: ['ernie-4.0-turbo-8k'],
    });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    baiduTokenCache.clear();
    await server.stop();
    await upstream.close();
  });

  it('type 15 chat: one access token from the channel base, the chat endpoint with it, the answer converted and billed', async () => {
    const completion = await client.chat.completions.create({ ...ask('ERNIE-3.5-8K'), max_tokens: 64 });
    expect(completion.choices[0]!.message.content).toBe('您好，我是文心一言，英文名是ERNIE Bot。');
    expect(completion.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 17, total_tokens: 21 });
    const [token, chat] = upstream.requests.slice(-2);
    expect(token!.url).toBe('/oauth/2.0/token?grant_type=client_credentials&client_id=ak-good&client_secret=sk-good');
    expect(chat!.url).toBe(`${chatPath}?access_token=tok-1`);
    expect(chat!.json).toEqual({
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello' }],
      max_output_tokens: 64,
      stream: false,
    });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.ernie! });
    expect(state.logs[0]).toMatchObject({ model_name: 'ERNIE-3.5-8K', prompt_tokens: 4, completion_tokens: 17, is_stream: 0 });
    expectBilledExactly(state);
  });

  it('type 15 stream: the cached token, is_end frames as OpenAI chunks with usage, billed as a stream', async () => {
    const { text, usage } = await collect(
      await client.chat.completions.create({ ...ask('ERNIE-3.5-8K'), stream: true, stream_options: { include_usage: true } }),
    );
    expect(text).toBe('当然可以，以下是一些建议。');
    expect(usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 9 });
    expect(tokenRequests()).toHaveLength(1);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe(`${chatPath}?access_token=tok-1`);
    expect(sent.json.stream).toBe(true);
    const state = await billedState(server.ctx, { ...caller, channelId: channels.ernie! });
    expect(state.logs[0]).toMatchObject({ prompt_tokens: 5, completion_tokens: 9, is_stream: 1 });
    expectBilledExactly(state);
  });

  it('type 15 embeddings: {input:[…]} to the bge_large_zh endpoint, OpenAI list back, billed on Baidu usage', async () => {
    const result = await client.embeddings.create({ model: 'bge-large-zh', input: ['你好', '世界'], encoding_format: 'float' });
    expect(result.data.map((item) => item.index)).toEqual([0, 1]);
    expect(result.data[1]!.embedding).toEqual([0.12, -0.5, 0.25]);
    expect(result.usage.prompt_tokens).toBe(12);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/bge_large_zh?access_token=tok-1');
    expect(sent.json).toEqual({ input: ['你好', '世界'] });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.ernie! });
    expect(state.logs[0]).toMatchObject({ model_name: 'bge-large-zh', prompt_tokens: 12, completion_tokens: 0 });
    expectBilledExactly(state);
  });

  it("type 15 embeddings with the client's default encoding: base64 float32 vectors the client decodes", async () => {
    const result = await client.embeddings.create({ model: 'bge-large-zh', input: ['你好', '世界'] });
    expect(upstream.requests.at(-1)!.json).toEqual({ input: ['你好', '世界'] });
    const second = Array.from(result.data[1]!.embedding);
    expect(second).toHaveLength(3);
    [0.12, -0.5, 0.25].forEach((value, at) => expect(second[at]).toBeCloseTo(value, 6));
  });

  it('type 15: an HTTP-200 error 110 (token no longer valid) fails the call without disabling the channel; the next call gets a new token', async () => {
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
    await client.chat.completions.create(ask('ERNIE-3.5-8K'));
    const cachedUrl = upstream.requests.at(-1)!.url;
    const issuedBefore = tokenRequests().length;
    upstream.revokeTokens();
    await expect(client.chat.completions.create(ask('ERNIE-3.5-8K'))).rejects.toMatchObject({
      status: 503,
      error: { code: 'upstream_error' },
    });
    expect(upstream.requests.at(-1)!.url).toBe(cachedUrl);
    const row = await server.ctx.storage.db
      .selectFrom('channels')
      .select('status')
      .where('id', '=', channels.ernie!)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe(1);
    const completion = await client.chat.completions.create(ask('ERNIE-3.5-8K'));
    expect(completion.choices[0]!.message.content).toContain('文心一言');
    expect(tokenRequests()).toHaveLength(issuedBefore + 1);
    expect(upstream.requests.at(-1)!.url).toBe(`${chatPath}?access_token=tok-${issuedBefore + 1}`);
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'false');
  });

  it('type 15: a key the token endpoint rejects fails with 401 upstream and auto-disables the channel', async () => {
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
    const broken = await createRelayChannel(server.ctx, {
      type: 15,
      key: 'ak-bad|sk-bad',
      baseURL: upstream.url,
      models: ['ERNIE-Speed-8K'],
    });
    await expect(client.chat.completions.create(ask('ERNIE-Speed-8K'))).rejects.toMatchObject({ status: 502 });
    expect(upstream.requests.at(-1)!.url).toContain('/oauth/2.0/token?grant_type=client_credentials&client_id=ak-bad');
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'false');
    await expect
      .poll(
        async () =>
          (await server.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', broken).executeTakeFirstOrThrow()).status,
      )
      .toBe(3);
  });

  it('type 15 stream: a bare JSON error body answering a stream fails the call, and the next stream gets a new token', async () => {
    await client.chat.completions.create(ask('ERNIE-3.5-8K'));
    const issuedBefore = tokenRequests().length;
    upstream.revokeTokens();
    // The error comes before the first byte: the client gets an error status, not a broken stream.
    await expect(client.chat.completions.create({ ...ask('ERNIE-3.5-8K'), stream: true }).then(collect)).rejects.toMatchObject({
      status: 503,
      error: { code: 'upstream_error' },
    });
    const { text } = await collect(await client.chat.completions.create({ ...ask('ERNIE-3.5-8K'), stream: true }));
    expect(text).toBe('当然可以，以下是一些建议。');
    expect(tokenRequests()).toHaveLength(issuedBefore + 1);
  });

  it('type 46 stream: /v2/chat/completions with Bearer, appid and include_usage; usage billed', async () => {
    const { text, usage } = await collect(await client.chat.completions.create({ ...ask('ernie-4.0-turbo-8k'), stream: true }));
    expect(text).toBe('你好，千帆');
    expect(usage).toBeUndefined();
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v2/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${qianfanGoodToken}`);
    expect(sent.headers.appid).toBe('app-e2e');
    expect(sent.json).toMatchObject({ model: 'ernie-4.0-turbo-8k', stream: true, stream_options: { include_usage: true } });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.qianfan! });
    expect(state.logs[0]).toMatchObject({ model_name: 'ernie-4.0-turbo-8k', prompt_tokens: 3, completion_tokens: 4, is_stream: 1 });
    expectBilledExactly(state);
  });
});

describe('admin channel test (GET /api/channel/test/:id) on Baidu channels', () => {
  let server: TestServer;
  let upstream: BaiduUpstream;
  let admin: ApiClient;

  beforeAll(async () => {
    baiduTokenCache.clear();
    server = await startTestServer();
    upstream = await startBaiduUpstream();
    const id = await createRelayUser(server.ctx, { role: 10 });
    admin = server.client();
    admin.cookie = `session=${signSession('test-session-secret', id, 0)}`;
    admin.userId = id;
  });
  afterAll(async () => {
    baiduTokenCache.clear();
    await server.stop();
    await upstream.close();
  });

  // Needs main's channel-test rewrite (buildUpstreamRequest/sendUpstream + the converter): the
  // current probe posts the OpenAI body to api.url without an access token, so these two fail until then.
  describe('type 15 (needs the channel-test rewrite on main)', () => {
    it('a healthy channel tests healthy after a token request and a wenxinworkshop chat', async () => {
      const id = await createRelayChannel(server.ctx, { type: 15, key: goodKey, baseURL: upstream.url, models: ['ERNIE-3.5-8K'] });
      const res = await admin.get(`/api/channel/test/${id}`);
      expect(res.body).toMatchObject({ success: true, message: '' });
      expect(typeof res.body.time).toBe('number');
      const chat = upstream.requests.at(-1)!;
      expect(chat.url).toMatch(new RegExp(`^${chatPath}\\?access_token=tok-\\d+$`));
      expect(chat.json).toMatchObject({ messages: [{ role: 'user', content: 'hi' }], max_output_tokens: 16 });
      expect(chat.json.model).toBeUndefined();
    });

    it('a channel whose API key Baidu rejects tests as failed', async () => {
      const id = await createRelayChannel(server.ctx, { type: 15, key: 'ak-bad|sk-bad', baseURL: upstream.url, models: ['ERNIE-3.5-8K'] });
      const res = await admin.get(`/api/channel/test/${id}`);
      expect(res.body.success).toBe(false);
      expect(res.body.message).toContain('unknown client id');
      expect(upstream.requests.at(-1)!.url).toContain('client_id=ak-bad');
    });
  });

  describe('type 46', () => {
    it('a healthy channel tests healthy; the local server got Bearer, appid and an OpenAI body', async () => {
      const id = await createRelayChannel(server.ctx, {
        type: 46,
        key: `${qianfanGoodToken}|app-probe`,
        baseURL: upstream.url,
        models: ['ernie-4.0-turbo-8k'],
      });
      const res = await admin.get(`/api/channel/test/${id}`);
      expect(res.body).toMatchObject({ success: true, message: '' });
      const sent = upstream.requests.at(-1)!;
      expect(sent.url).toBe('/v2/chat/completions');
      expect(sent.headers).toMatchObject({ authorization: `Bearer ${qianfanGoodToken}`, appid: 'app-probe' });
      expect(sent.json).toMatchObject({ model: 'ernie-4.0-turbo-8k', messages: [{ role: 'user', content: 'hi' }] });
    });

    it('a bad key (Qianfan answers 401) tests as failed', async () => {
      const id = await createRelayChannel(server.ctx, {
        type: 46,
        key: 'bce-v3/ALTAK-bad/x',
        baseURL: upstream.url,
        models: ['ernie-4.0-turbo-8k'],
      });
      const res = await admin.get(`/api/channel/test/${id}`);
      expect(res.body.success).toBe(false);
      expect(res.body.message).toContain('IAM Certification failed');
    });
  });
});
