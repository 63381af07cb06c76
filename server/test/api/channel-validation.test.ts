import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { createSdkCaller } from '../relay/sdk-setup.js';

const cloudflareAccount = '0123456789abcdef0123456789abcdef';

describe('channel create/update run the type validateChannel; endpoint support decides selection', () => {
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

  const create = (body: Record<string, unknown>) => admin.post('/api/channel/', { name: 'c', models: 'm-1', group: 'default', ...body });

  it('rejects a Cloudflare channel without an account id, and a malformed one, with the adapter message', async () => {
    const missing = await create({ type: 39, key: 'cf-token' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ success: false, message: 'Cloudflare 需要在「其他」中填写 Account ID' });
    const malformed = await create({ type: 39, key: 'cf-token', other: 'not-an-id' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('Cloudflare Account ID 应为 32 位十六进制字符串');
    const good = await create({ type: 39, key: 'cf-token', other: cloudflareAccount });
    expect(good.status, good.text).toBe(200);
  });

  it('refuses a key with control or non-ASCII characters, which no request header can carry', async () => {
    for (const key of ['sk-\u0007x', 'sk-\u2028x', 'sk-é']) {
      const refused = await create({ type: 1, key });
      expect(refused.status, key).toBe(400);
      expect(refused.body.message).toBe('key: 渠道密钥只能包含 ASCII 字符，多个密钥每行一个');
    }
    expect((await create({ type: 1, key: 'sk-one\r\nsk-two\n' })).status).toBe(200);
  });

  it('refuses an OpenAI organization that cannot be sent as a header', async () => {
    for (const organization of ['org\r\nX-Injected: 1', 'org abc', 'org-é']) {
      const refused = await create({ type: 1, key: 'sk-x', openai_organization: organization });
      expect(refused.status, organization).toBe(400);
      expect(refused.body.message).toBe('openai_organization: openai_organization 只能包含可见的 ASCII 字符，如 org-…');
    }
    expect((await create({ type: 1, key: 'sk-x', openai_organization: ' org-Abc_123 ' })).status).toBe(200);
  });

  it('rejects Bedrock keys that are not AK|SK|Region or APIKey|Region', async () => {
    for (const key of ['just-a-key', 'AK||us-east-1', 'AK|SK|not a region', 'a|b|c|d|e']) {
      const res = await create({ type: 33, key });
      expect(res.status, key).toBe(400);
      expect(res.body.message, key).toMatch(/^AWS Bedrock (密钥格式应为 AccessKey\|SecretKey\|Region 或 APIKey\|Region|区域无效)/);
    }
    expect((await create({ type: 33, key: 'AKIDEXAMPLE|secret|us-east-1' })).status).toBe(200);
    expect((await create({ type: 33, key: 'bedrock-api-key|eu-west-3' })).status).toBe(200);
  });

  it('rejects a Vertex service-account JSON without its fields, and an update that breaks a valid channel', async () => {
    const res = await create({ type: 41, key: '{"type":"service_account","project_id":"p"}' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Vertex AI 服务账号 JSON 缺少 project_id、client_email 或 private_key');

    const created = await create({ type: 39, key: 'cf-token', other: cloudflareAccount });
    const id = (await server.ctx.storage.db.selectFrom('channels').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
    expect(created.status).toBe(200);
    const update = await admin.put('/api/channel/', { id, other: '' });
    expect(update.status).toBe(400);
    expect(update.body.message).toBe('Cloudflare 需要在「其他」中填写 Account ID');
    const row = await server.ctx.storage.db.selectFrom('channels').select('other').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.other).toBe(cloudflareAccount);
    const dify = await admin.put('/api/channel/', { id, type: 37, key: 'sk-not-an-app-key', other: 'chat' });
    expect(dify.status).toBe(400);
    expect(dify.body.message).toBe('Dify 的应用密钥以 app- 开头');
  });

  it('skips a channel whose type cannot serve the endpoint and uses the able one; only unable ones → 400', async () => {
    const { ctx } = server;
    await setOption(ctx, 'SelfUseModeEnabled', 'true');
    const caller = await createSdkCaller(ctx);
    const client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    // Dify serves chat only; Ollama serves embeddings. The Dify channel has the higher priority.
    const unable = await createRelayChannel(ctx, { type: 37, key: 'app-x', baseURL: upstream.url, models: ['embed-mixed'], priority: 10 });
    const able = await createRelayChannel(ctx, { type: 4, key: '', baseURL: upstream.url, models: ['embed-mixed'], priority: 0 });
    upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('ollama', 'embed.json') });
    const before = upstream.requests.length;
    const result = await client.embeddings.create({ model: 'embed-mixed', input: ['a', 'b'], encoding_format: 'float' });
    expect(result.data).toHaveLength(2);
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests.at(-1)!.url).toBe('/api/embed');
    await flushRelay(ctx);
    const log = await ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', caller.userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log.channel_id).toBe(able);
    expect(log.channel_id).not.toBe(unable);

    await createRelayChannel(ctx, { type: 37, key: 'app-y', baseURL: upstream.url, models: ['embed-only-dify'] });
    const error = await client.embeddings.create({ model: 'embed-only-dify', input: 'a' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const badRequest = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(badRequest.status).toBe(400);
    expect(badRequest.error).toMatchObject({
      code: 'unsupported_endpoint',
      type: 'invalid_request_error',
      message: expect.stringContaining('does not support this endpoint'),
    });
    expect(upstream.requests.length).toBe(before + 1);
  });
});
