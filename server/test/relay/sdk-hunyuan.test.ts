import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/lib/session.js';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture } from '../providers/helpers/fixture-upstream.js';
import { startHunyuanUpstream, type HunyuanUpstream } from '../providers/helpers/hunyuan-upstream.js';
import { billedState, createSdkCaller, quotaOfLog, setChannelOther } from './sdk-setup.js';

const json = (name: string) => ({ status: 200, contentType: 'application/json', body: readFixture('hunyuan', name) });
const goodKey = '1300000000|AKIDe2e|e2e-secret';
const badKey = '1300000000|AKIDe2e|not-the-secret';

/** The official openai client through ModelGate to a local Tencent API 3.0 server that checks every TC3 signature. */
describe('openai client → Hunyuan (type 23) channels', () => {
  let server: TestServer;
  let upstream: HunyuanUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startHunyuanUpstream({ AKIDe2e: 'e2e-secret' });
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), 'hunyuan-lite': 1, 'hunyuan-embedding': 0.5 }),
    );
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, {
      type: 23,
      key: goodKey,
      baseURL: upstream.url,
      models: ['hunyuan-lite', 'hunyuan-embedding'],
    });
    await setChannelOther(server.ctx, channelId, 'ap-guangzhou');
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('non-stream chat: a signed ChatCompletions call, converted answer, billed from Hunyuan usage', async () => {
    upstream.reply(json('chat.json'));
    const completion = await client.chat.completions.create({
      model: 'hunyuan-lite',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '你好' },
      ],
      temperature: 0.3,
    });
    expect(completion.choices[0]!.message.content).toBe('你好！我是腾讯混元大模型。');
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 9 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.authFailure).toBeNull();
    expect(sent.headers).toMatchObject({ 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01', 'x-tc-region': 'ap-guangzhou' });
    expect(sent.json).toEqual({
      Model: 'hunyuan-lite',
      Stream: false,
      Temperature: 0.3,
      Messages: [
        { Role: 'system', Content: 'Be brief.' },
        { Role: 'user', Content: '你好' },
      ],
    });
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect(state.logs[0]).toMatchObject({ model_name: 'hunyuan-lite', prompt_tokens: 12, completion_tokens: 9, is_stream: 0 });
    expect(state.logs[0]!.quota).toBe(quotaOfLog(state.logs[0]!, state.logs[0]!.other));
    expect(state.logs[0]!.quota).toBeGreaterThan(0);
    expect(state.userUsed).toBe(state.logs[0]!.quota);
  });

  it('stream chat: chunks from Delta.Content, usage from the last frame, billed as a stream', async () => {
    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('hunyuan', 'chat-stream.chunks.txt') });
    const stream = await client.chat.completions.create({
      model: 'hunyuan-lite',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('你好，世界！');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 4 });
    expect(upstream.requests.at(-1)).toMatchObject({ authFailure: null, json: { Stream: true } });
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect(state.logs[0]).toMatchObject({ prompt_tokens: 6, completion_tokens: 4, is_stream: 1 });
    expect(state.logs[0]!.quota).toBe(quotaOfLog(state.logs[0]!, state.logs[0]!.other));
  });

  it('embeddings: GetEmbedding with InputList, OpenAI list back, billed prompt tokens', async () => {
    upstream.reply(json('embeddings.json'));
    const result = await client.embeddings.create({ model: 'hunyuan-embedding', input: ['一', '二'], encoding_format: 'float' });
    expect(result.data.map((item) => item.embedding)).toEqual([
      [0.0123, -0.0456, 0.0789],
      [-0.011, 0.022, -0.033],
    ]);
    expect(result.usage.prompt_tokens).toBe(8);
    expect(upstream.requests.at(-1)).toMatchObject({
      authFailure: null,
      headers: { 'x-tc-action': 'GetEmbedding' },
      json: { InputList: ['一', '二'] },
    });
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect(state.logs[0]).toMatchObject({ model_name: 'hunyuan-embedding', prompt_tokens: 8 });
    const refused = await client.embeddings
      .create({ model: 'hunyuan-embedding', input: [[1, 2, 3]], encoding_format: 'float' })
      .catch((caught: unknown) => caught);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  it('an HTTP-200 error body is an upstream error with its mapped status, and nothing is billed', async () => {
    const before = await billedState(server.ctx, { ...caller, channelId });
    upstream.reply(json('error-limit.json'));
    const error = await client.chat.completions
      .create({ model: 'hunyuan-lite', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    upstream.reply(json('error-param.json'));
    const bad = await client.chat.completions
      .create({ model: 'hunyuan-lite', messages: [{ role: 'user', content: 'Hi' }], stream: true })
      .catch((caught: unknown) => caught);
    expect((bad as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    const after = await billedState(server.ctx, { ...caller, channelId });
    expect(after.logs).toHaveLength(before.logs.length);
    expect(after.userUsed).toBe(before.userUsed);
  });

  it('a wrong SecretKey: the upstream answers AuthFailure (HTTP 200), the channel is auto-disabled as a key failure', async () => {
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
    try {
      const broken = await createRelayChannel(server.ctx, { type: 23, key: badKey, baseURL: upstream.url, models: ['hunyuan-broken'] });
      const error = await client.chat.completions
        .create({ model: 'hunyuan-broken', messages: [{ role: 'user', content: 'Hi' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(upstream.requests.at(-1)!.authFailure).toBe('AuthFailure.SignatureFailure');
      await expect
        .poll(
          async () =>
            (await server.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', broken).executeTakeFirstOrThrow()).status,
        )
        .toBe(3);
    } finally {
      await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'false');
    }
  });
});

/**
 * The admin channel test (GET /api/channel/test/:id) on Hunyuan channels. PENDING main's rewrite of
 * the channel test onto buildUpstreamRequest/sendUpstream and the adapter's converter: until it
 * lands, the test posts an unsigned OpenAI body, which this upstream rejects (AuthFailure with HTTP
 * 200) and the old code reads as healthy, so these two tests fail by design.
 */
describe('admin channel test on Hunyuan channels (needs the channel-test rewrite from main)', () => {
  let server: TestServer;
  let upstream: HunyuanUpstream;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startHunyuanUpstream({ AKIDe2e: 'e2e-secret' });
    const adminId = await createRelayUser(server.ctx, { role: 10 });
    admin = server.client();
    admin.cookie = `session=${signSession('test-session-secret', adminId, 0)}`;
    admin.userId = adminId;
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('a healthy channel tests healthy; the upstream got a signed ChatCompletions (and GetEmbedding) call', async () => {
    const id = await createRelayChannel(server.ctx, {
      type: 23,
      key: goodKey,
      baseURL: upstream.url,
      models: ['hunyuan-lite', 'hunyuan-embedding'],
    });
    upstream.reply(json('chat.json'));
    const res = await admin.get(`/api/channel/test/${id}`);
    expect(res.body, res.text).toMatchObject({ success: true, message: '' });
    expect(typeof res.body.time).toBe('number');
    expect(upstream.requests.at(-1)).toMatchObject({
      authFailure: null,
      headers: { 'x-tc-action': 'ChatCompletions' },
      json: { Model: 'hunyuan-lite', Messages: [{ Role: 'user' }] },
    });

    upstream.reply(json('embeddings.json'));
    expect((await admin.get(`/api/channel/test/${id}?model=hunyuan-embedding`)).body).toMatchObject({ success: true });
    expect(upstream.requests.at(-1)).toMatchObject({ authFailure: null, headers: { 'x-tc-action': 'GetEmbedding' } });
  });

  it('a channel with a wrong key tests as failed (AuthFailure answered with HTTP 200)', async () => {
    const id = await createRelayChannel(server.ctx, { type: 23, key: badKey, baseURL: upstream.url, models: ['hunyuan-lite'] });
    const res = await admin.get(`/api/channel/test/${id}`);
    expect(res.body.success, res.text).toBe(false);
    expect(res.body.message).toContain('credentials could not be validated');
    expect(upstream.requests.at(-1)!.authFailure).toBe('AuthFailure.SignatureFailure');
  });
});
