import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regionFor } from '../../src/relay/providers/vertex/api.js';
import type { ApiClient } from '../helpers/api-client.js';
import { setOption } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller } from '../relay/sdk-setup.js';

/** Vertex AI (41) takes a service-account JSON or a plain API key (express mode); create accepts both. */
describe('Vertex AI channels with an API key', () => {
  let server: TestServer;
  let admin: ApiClient;
  let upstream: FixtureUpstream;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    admin = (await signedInClient(server, { username: 'root', role: 100 })).client;
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  const create = (body: Record<string, unknown>) =>
    admin.post('/api/channel/', { name: 'vertex', type: 41, models: 'gemini-2.5-flash', group: 'default', ...body });
  const keyOf = async (id: number) =>
    (await server.ctx.storage.db.selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow()).key;

  it('creates a channel from a plain API key, one per line in batch mode', async () => {
    const single = await create({ key: ' AIzaSyExampleVertexKey0123456789 ' });
    expect(single.status, single.text).toBe(200);
    expect(await keyOf(single.body.data.ids[0])).toBe('AIzaSyExampleVertexKey0123456789');
    const batch = await create({ mode: 'batch', key: 'AQ.key-one\nAQ.key-two\n' });
    expect(batch.status, batch.text).toBe(200);
    expect(await Promise.all(batch.body.data.ids.map(keyOf))).toEqual(['AQ.key-one', 'AQ.key-two']);
  });

  it('still refuses a JSON key that is malformed or misses the service-account fields', async () => {
    const broken = await create({ key: '{"type":"service_account",' });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ success: false, message: '该渠道类型的密钥必须是合法的 JSON 格式！', data: null });
    const incomplete = await create({ key: '{"type":"service_account","project_id":"p"}' });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.message).toBe('Vertex AI 服务账号 JSON 缺少 project_id、client_email 或 private_key');
    const badBatch = await create({ mode: 'batch', key: '[{"project_id":"p"}, 3]' });
    expect(badBatch.status).toBe(400);
    expect(badBatch.body.message).toBe('该渠道类型的密钥必须是合法的 JSON 格式！');
  });

  it('takes only region names as the region: the region becomes part of the host the token is sent to', async () => {
    for (const other of ['europe-west4', 'global', '{"default":"us-central1","gemini-2.5-pro":"global"}', '']) {
      const made = await create({ key: 'AIzaSyExampleVertexKey0123456789', other });
      expect(made.status, `${other}: ${made.text}`).toBe(200);
    }
    const refusals: Array<[string, string]> = [
      ['collector.example.net/x?', 'Vertex AI 区域无效：collector.example.net/x?（例如 us-central1）'],
      ['us-central1.evil', 'Vertex AI 区域无效：us-central1.evil（例如 us-central1）'],
      ['{"default":"evil.example/#"}', 'Vertex AI 区域无效：default → "evil.example/#"（例如 us-central1）'],
      ['{"default":7}', 'Vertex AI 区域无效：default → 7（例如 us-central1）'],
      ['{"default":', 'Vertex AI 区域映射必须是 JSON 对象，如 {"default": "us-central1"}'],
    ];
    for (const [other, message] of refusals) {
      const refused = await create({ key: 'AIzaSyExampleVertexKey0123456789', other });
      expect([refused.status, refused.body.message], other).toEqual([400, message]);
    }
    // A value stored before the check (an import, a hand edit) never names another host: it reads as the default region.
    expect(regionFor('collector.example.net/x?', 'gemini-2.5-flash')).toBe('us-central1');
    expect(regionFor('{"gemini-2.5-flash":"evil.example/#","default":"europe-west4"}', 'gemini-2.5-flash')).toBe('us-central1');
    expect(regionFor('{"gemini-2.5-flash":"asia-east1","default":"europe-west4"}', 'gemini-2.5-flash')).toBe('asia-east1');
    expect(regionFor('{"default":"europe-west4"}', 'constructor')).toBe('europe-west4');
  });

  it('relays the openai client through an API-key channel made by the API, with x-goog-api-key, and bills it', async () => {
    const { ctx } = server;
    await setOption(ctx, 'SelfUseModeEnabled', 'true');
    const made = await admin.post('/api/channel/', {
      name: 'vertex-express',
      type: 41,
      key: 'AQ.express-key',
      models: 'gemini-express-test',
      group: 'default',
      base_url: upstream.url,
      other: 'global',
    });
    expect(made.status, made.text).toBe(200);
    const channelId = made.body.data.ids[0] as number;
    const caller = await createSdkCaller(ctx);
    const client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });

    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('vertex', 'gemini-generate.json') });
    const completion = await client.chat.completions.create({
      model: 'gemini-express-test',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Bonjour !');
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/publishers/google/models/gemini-express-test:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('AQ.express-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json.contents[0]).toMatchObject({ role: 'user', parts: [{ text: 'Hello' }] });

    upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    const stream = await client.chat.completions.create({
      model: 'gemini-express-test',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(upstream.requests.at(-1)!.url).toBe('/v1/publishers/google/models/gemini-express-test:streamGenerateContent?alt=sse');

    const state = await billedState(ctx, { ...caller, channelId });
    expect(state.logs).toHaveLength(2);
    expect(state.logs[1]).toMatchObject({ model_name: 'gemini-express-test', prompt_tokens: 6, completion_tokens: 3 });
    expect(state.logs[0]).toMatchObject({ prompt_tokens: usage!.prompt_tokens, completion_tokens: usage!.completion_tokens });
    expect(state.userUsed).toBe(state.logs[0]!.quota + state.logs[1]!.quota);
    expect(state.channelUsed).toBe(state.userUsed);
  });
});
