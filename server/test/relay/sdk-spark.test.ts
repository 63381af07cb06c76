import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/lib/session.js';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { framesOf, startSparkUpstream, type SparkUpstream } from '../helpers/spark-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, quotaOfLog, setChannelOther } from './sdk-setup.js';

const keys = { apiSecret: 'spark-secret', apiKey: 'spark-key' };
const goodKey = `app-1|${keys.apiSecret}|${keys.apiKey}`;

/** The openai client through ModelGate to a local iFlytek Spark WebSocket server that checks every signature. */
describe('openai client → iFlytek Spark (type 18) over its signed WebSocket', () => {
  let server: TestServer;
  let spark: SparkUpstream;
  let client: OpenAI;
  let admin: ApiClient;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;
  const ask = { model: 'SparkDesk', messages: [{ role: 'user' as const, content: '你好' }] };

  beforeAll(async () => {
    server = await startTestServer();
    spark = await startSparkUpstream(keys);
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ SparkDesk: 1.5, 'SparkDesk-v3.5': 1.5, 'spark-broken': 1 }));
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, {
      type: 18,
      key: goodKey,
      baseURL: spark.url,
      models: ['SparkDesk', 'SparkDesk-v3.5'],
    });
    await setChannelOther(server.ctx, channelId, 'v3.1');
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const adminId = await createRelayUser(server.ctx, { role: 10 });
    admin = server.client();
    admin.cookie = `session=${signSession('test-session-secret', adminId, 0)}`;
    admin.userId = adminId;
  });
  afterAll(async () => {
    await server.stop();
    await spark.close();
  });

  it("streams the frames as chunks with the last frame's usage, and bills it", async () => {
    spark.reply(framesOf(readFixture('spark', 'chat.frames.ndjson')));
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of await client.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } })) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('你好！我是讯飞星火，很高兴为你服务。');
    expect(usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 16 });
    // The channel's version (v3.1) picks the path and the domain.
    expect(spark.calls.at(-1)).toMatchObject({
      path: '/v3.1/chat',
      frame: { header: { app_id: 'app-1' }, parameter: { chat: { domain: 'generalv3' } } },
    });
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect(state.logs[0]).toMatchObject({ is_stream: 1, prompt_tokens: 5, completion_tokens: 16 });
    expect(state.logs[0]!.quota).toBe(quotaOfLog(state.logs[0]!, state.logs[0]!.other));
  });

  it('joins the frames for a non-stream client; the model suffix and ?api-version= choose the version', async () => {
    spark.reply(framesOf(readFixture('spark', 'chat.frames.ndjson')));
    const completion = await client.chat.completions.create({ ...ask, model: 'SparkDesk-v3.5' });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBe('你好！我是讯飞星火，很高兴为你服务。');
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 16 });
    expect(spark.calls.at(-1)!.path).toBe('/v3.5/chat');

    spark.reply(framesOf(readFixture('spark', 'chat.frames.ndjson')));
    await client.chat.completions.create(ask, { query: { 'api-version': 'v4.0' } });
    expect(spark.calls.at(-1)).toMatchObject({ path: '/v4.0/chat', frame: { parameter: { chat: { domain: '4.0Ultra' } } } });

    const state = await billedState(server.ctx, { ...caller, channelId });
    expect(state.logs.slice(0, 2).map((log) => [log.is_stream, log.prompt_tokens, log.completion_tokens])).toEqual([
      [0, 5, 16],
      [0, 5, 16],
    ]);
    expect(state.userUsed).toBe(state.logs.reduce((sum, log) => sum + log.quota, 0));
  });

  it('an error frame reaches the client as a 4xx and bills nothing', async () => {
    const before = await billedState(server.ctx, { ...caller, channelId });
    spark.reply(framesOf(readFixture('spark', 'error.frames.ndjson')));
    const failure = (await client.chat.completions.create(ask).catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure.status).toBe(400);
    const after = await billedState(server.ctx, { ...caller, channelId });
    expect(after.logs).toHaveLength(before.logs.length);
    expect(after.userUsed).toBe(before.userUsed);
  });

  it('the channel test signs and speaks the socket: healthy tests healthy, a wrong secret tests as a bad key', async () => {
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
    spark.reply(framesOf(readFixture('spark', 'chat.frames.ndjson')));
    const healthy = await admin.get(`/api/channel/test/${channelId}`);
    expect(healthy.body, healthy.text).toMatchObject({ success: true, message: '' });
    expect(spark.calls.at(-1)!.frame.payload.message.text).toEqual([{ role: 'user', content: 'hi' }]);

    const broken = await createRelayChannel(server.ctx, {
      type: 18,
      key: `app-1|wrong-secret|${keys.apiKey}`,
      baseURL: spark.url,
      models: ['spark-broken'],
    });
    const refused = spark.refused;
    const bad = await admin.get(`/api/channel/test/${broken}`);
    expect(bad.body.success, bad.text).toBe(false);
    expect(bad.body.message).toContain('HMAC signature does not match');
    expect(spark.refused).toBe(refused + 1);
    const row = await server.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', broken).executeTakeFirstOrThrow();
    expect(row.status).toBe(3);
  });
});
